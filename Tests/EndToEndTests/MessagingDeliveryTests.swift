import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import MessagingProtos
import SwiftProtobuf
import Testing

/// Two users who exist only because they signed up through the app API, over real sockets: one's
/// message reaches the other's mailbox, found by the other's search, marked read by them; each
/// sees only their own account, address book and mailbox; bad input answered with a clear status.
@Suite("UnicornChat: users sign up and messages arrive, over real sockets", .serialized)
struct MessagingDeliveryTests {
  typealias App = Intentmesh_Messaging_V1_UnicornChatApp.Client<HTTP2ClientTransport.Posix>
  typealias Extension = Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>

  func withClients<T: Sendable>(port: Int, _ body: (App, Extension) async throws -> T) async throws -> T {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { client in
      try await body(App(wrapping: client), Extension(wrapping: client))
    }
  }

  static func context(_ user: String) -> Intentmesh_V1_RequestContext {
    .with {
      $0.userID = user; $0.timeZone = "Europe/Zurich"
    }
  }

  static func intent<M: SwiftProtobuf.Message>(_ intentClass: String, _ message: M, identifier: String = "")
    throws -> Intentmesh_V1_Intent
  {
    try .with {
      $0.intentClass = intentClass; $0.identifier = identifier; $0.payload = try .init(message: message)
    }
  }

  /// Resolve, confirm and handle `intent` as `user`; the handled response.
  static func handle(_ intent: Intentmesh_V1_Intent, as user: String, on client: Extension) async throws
    -> Intentmesh_V1_HandleResponse
  {
    let resolved = try await client.resolve(
      .with {
        $0.context = context(user); $0.intent = intent
      })
    #expect(resolved.complete, "\(resolved)")
    let confirmed = try await client.confirm(
      .with {
        $0.context = context(user); $0.intent = resolved.resolvedIntent
      })
    return try await client.handle(
      .with {
        $0.context = context(user); $0.intent = resolved.resolvedIntent
        $0.confirmationToken = confirmed.confirmationToken
      })
  }

  static func expectStatus(_ code: RPCError.Code, _ body: () async throws -> Void) async {
    do {
      try await body()
      Issue.record("expected \(code)")
    } catch let error as RPCError {
      #expect(error.code == code, "\(error)")
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test("Ava and Ben sign up; Ava's message arrives unread in Ben's mailbox; Ben finds it, reads it")
  func delivery() async throws {
    let file = TemporaryDatabaseFile("delivery")
    defer { file.remove() }
    let service = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    try await withClients(port: service.port) { app, client in
      let ava = TestIdentity.metadata(for: "ava")
      let ben = TestIdentity.metadata(for: "ben")
      await Self.expectStatus(.notFound) { _ = try await app.getAccount(.init(), metadata: ava) }
      let signedUp = try await app.signUp(
        .with {
          $0.displayName = "Ava Stardust"; $0.handle = "Ava@Unicorn.Chat"
        }, metadata: ava)
      #expect(signedUp.account.userID == "ava" && signedUp.account.handle == "ava@unicorn.chat")
      _ = try await app.signUp(
        .with {
          $0.displayName = "Ben Moonbeam"; $0.handle = "ben@unicorn.chat"
        }, metadata: ben)
      #expect(try await app.getAccount(.init(), metadata: ben).account.displayName == "Ben Moonbeam")
      // Bad input, each with its status.
      await Self.expectStatus(.alreadyExists) {
        _ = try await app.signUp(
          .with {
            $0.displayName = "Again"; $0.handle = "ava2@unicorn.chat"
          }, metadata: ava)
      }
      await Self.expectStatus(.alreadyExists) {
        _ = try await app.signUp(
          .with {
            $0.displayName = "Thief"; $0.handle = "ben@unicorn.chat"
          }, metadata: TestIdentity.metadata(for: "eve"))
      }
      for handle in ["", "no-at-sign", "two@@unicorn.chat", "spaces in@unicorn.chat", "x@nodot"] {
        await Self.expectStatus(.invalidArgument) {
          _ = try await app.signUp(
            .with {
              $0.displayName = "Eve"; $0.handle = handle
            }, metadata: TestIdentity.metadata(for: "eve"))
        }
      }
      await Self.expectStatus(.invalidArgument) {
        _ = try await app.signUp(
          .with {
            $0.displayName = " "; $0.handle = "eve@unicorn.chat"
          }, metadata: TestIdentity.metadata(for: "eve"))
      }
      await Self.expectStatus(.unauthenticated) {
        _ = try await app.listMessages(.init(), metadata: ["authorization": "Bearer x"])
      }
      await Self.expectStatus(.invalidArgument) {
        _ = try await app.listMessages(.with { $0.limit = 501 }, metadata: ava)
      }
      // Address books: Ben is a user, Pinky is not; a handle is in a book once.
      let added = try await app.addContact(
        .with {
          $0.contact = .with {
            $0.givenName = "Ben"; $0.familyName = "Moonbeam"; $0.handle = "ben@unicorn.chat"
          }
        },
        metadata: ava)
      #expect(added.contact.displayName == "Ben Moonbeam" && added.contact.isUser && !added.contact.identifier.isEmpty)
      let pinky = try await app.addContact(
        .with {
          $0.contact = .with {
            $0.displayName = "Pinky Nose"; $0.handle = "pinky@meadow.example"
          }
        }, metadata: ava)
      #expect(!pinky.contact.isUser)
      await Self.expectStatus(.alreadyExists) {
        _ = try await app.addContact(
          .with {
            $0.contact = .with {
              $0.displayName = "Ben again"; $0.handle = "BEN@unicorn.chat"
            }
          }, metadata: ava)
      }
      _ = try await app.addContact(
        .with {
          $0.contact = .with {
            $0.displayName = "Ava Stardust"; $0.handle = "ava@unicorn.chat"
          }
        }, metadata: ben)
      #expect(
        try await app.listContacts(.init(), metadata: ava).contacts.map(\.displayName) == [
          "Ben Moonbeam", "Pinky Nose",
        ])
      #expect(try await app.listContacts(.init(), metadata: ben).contacts.map(\.displayName) == ["Ava Stardust"])

      // Ava writes to Ben with the intent, as Siri would.
      let sent = try await Self.handle(
        try Self.intent(
          "INSendMessageIntent",
          Intentmesh_Messaging_V1_SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Ben" }]; $0.content = "Rainbow race at noon?"
          }, identifier: "ava-1"), as: "ava", on: client)
      #expect(sent.response.codeName == "success")

      // Ben's mailbox: one unread message from Ava, as his address book names her.
      let unread = try await app.listMessages(.with { $0.unreadOnly = true }, metadata: ben).messages
      #expect(unread.map(\.content) == ["Rainbow race at noon?"])
      #expect(unread.first?.sender.displayName == "Ava Stardust")
      #expect(unread.first?.attributes.unread == true)
      // Ava's mailbox holds her sent copy only; nobody else's.
      let avas = try await app.listMessages(.init(), metadata: ava).messages
      #expect(avas.count == 1 && avas.first?.sender.isMe == true && avas.first?.attributes.read == true)
      #expect(try await app.listMessages(.init(), metadata: TestIdentity.metadata(for: "eve")).messages.isEmpty)

      // Ben finds it with the search intent ("my unread messages from Ava") and marks it read.
      let found = try await Self.handle(
        try Self.intent(
          "INSearchForMessagesIntent",
          Intentmesh_Messaging_V1_SearchForMessagesIntent.with {
            $0.senders = [.with { $0.displayName = "Ava" }]
            $0.attributes = .with { $0.unread = true }
          }), as: "ben", on: client)
      let messages = try Intentmesh_Messaging_V1_SearchForMessagesIntentResponse(unpackingAny: found.response.payload)
        .messages
      #expect(messages.map(\.content) == ["Rainbow race at noon?"])
      let read = try await Self.handle(
        try Self.intent(
          "INSetMessageAttributeIntent",
          Intentmesh_Messaging_V1_SetMessageAttributeIntent.with {
            $0.identifiers = messages.map(\.identifier); $0.attribute = .read
          }, identifier: "ben-read-1"), as: "ben", on: client)
      #expect(read.response.codeName == "success")
      #expect(try await app.listMessages(.with { $0.unreadOnly = true }, metadata: ben).messages.isEmpty)
      // Ava cannot mark Ben's copy: it is not in her mailbox.
      let foreign = try await Self.handle(
        try Self.intent(
          "INSetMessageAttributeIntent",
          Intentmesh_Messaging_V1_SetMessageAttributeIntent.with {
            $0.identifiers = messages.map(\.identifier); $0.attribute = .flagged
          }, identifier: "ava-flag-1"), as: "ava", on: client)
      #expect(foreign.response.codeName != "success")
    }
    _ = try await service.stop(signal: SIGTERM)
  }
}

extension MessagingDeliveryTests {
  @Test("a user who blocks another cannot be messaged by them; unblocked, they can; the search result is drawn")
  func blocking() async throws {
    let file = TemporaryDatabaseFile("blocking")
    defer { file.remove() }
    let service = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    try await withClients(port: service.port) { app, client in
      let ava = TestIdentity.metadata(for: "ava")
      let ben = TestIdentity.metadata(for: "ben")
      _ = try await app.signUp(
        .with {
          $0.displayName = "Ava Stardust"; $0.handle = "ava@unicorn.chat"
        }, metadata: ava)
      _ = try await app.signUp(
        .with {
          $0.displayName = "Ben Moonbeam"; $0.handle = "ben@unicorn.chat"
        }, metadata: ben)
      _ = try await app.addContact(
        .with {
          $0.contact = .with {
            $0.displayName = "Ben Moonbeam"; $0.handle = "ben@unicorn.chat"
          }
        }, metadata: ava)
      let blocked = try await app.setBlocked(
        .with {
          $0.handle = "AVA@unicorn.chat"; $0.blocked = true
        }, metadata: ben)
      #expect(blocked.blockedHandles == ["ava@unicorn.chat"])
      await Self.expectStatus(.invalidArgument) {
        _ = try await app.setBlocked(
          .with {
            $0.handle = "ben@unicorn.chat"; $0.blocked = true
          }, metadata: ben)
      }
      await Self.expectStatus(.failedPrecondition) {
        _ = try await app.setBlocked(
          .with {
            $0.handle = "ava@unicorn.chat"; $0.blocked = true
          }, metadata: TestIdentity.metadata(for: "eve"))
      }
      let message = try Self.intent(
        "INSendMessageIntent",
        Intentmesh_Messaging_V1_SendMessageIntent.with {
          $0.recipients = [.with { $0.displayName = "Ben" }]; $0.content = "Still friends?"
        })
      let refused = try await client.resolve(
        .with {
          $0.context = Self.context("ava"); $0.intent = message
        })
      #expect(!refused.complete)
      let recipient = refused.resolutions.first { $0.parameter == "recipients" }?.results.first
      #expect(recipient?.unsupported.reason.name == "messagingServiceNotEnabledForRecipient")
      #expect(try await app.listMessages(.init(), metadata: ben).messages.isEmpty)
      _ = try await app.setBlocked(
        .with {
          $0.handle = "ava@unicorn.chat"; $0.blocked = false
        }, metadata: ben)
      let sent = try await Self.handle(
        try Self.intent(
          "INSendMessageIntent",
          Intentmesh_Messaging_V1_SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Ben" }]; $0.content = "Still friends?"
          }, identifier: "ava-2"), as: "ava", on: client)
      #expect(sent.response.codeName == "success")
      // Ben's search, drawn: the view lists what it found, not the search's parameters.
      let search = try Self.intent(
        "INSearchForMessagesIntent",
        Intentmesh_Messaging_V1_SearchForMessagesIntent.with { $0.attributes = .with { $0.unread = true } })
      let found = try await Self.handle(search, as: "ben", on: client)
      let view = try await client.configureView(
        .with {
          $0.context = Self.context("ben")
          $0.interaction = .with {
            $0.intent = search; $0.intentResponse = found.response; $0.intentHandlingStatus = .success
          }
        })
      #expect(view.configured && view.view.kind == "messages-list")
      let texts = Self.texts(view.view.root)
      #expect(texts.contains("1 message") && texts.contains("● ava@unicorn.chat"))
      #expect(texts.contains("Still friends?"))
    }
    _ = try await service.stop(signal: SIGTERM)
  }

  static func texts(_ node: Intentmesh_V1_ViewNode) -> [String] {
    switch node.node {
    case .text(let text): [text.text]
    case .stack(let stack): stack.children.flatMap(texts)
    default: []
    }
  }
}
