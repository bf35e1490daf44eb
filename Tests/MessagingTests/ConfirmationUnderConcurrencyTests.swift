import Foundation
import GRPCCore
import GRPCInProcessTransport
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import Messaging
import MessagingProtos
import SwiftProtobuf
import Testing

/// A yes to a UnicornChat message binds its recipients and content: a message that lands meanwhile
/// keeps it; a recipient who blocks the sender meanwhile gets nothing (Handle resolves the
/// recipients again); an edited content is named.
@Suite("SendMessage's yes under concurrent writes")
struct MessagingConfirmationUnderConcurrencyTests {
  let domain = InProcessDomain(
    definition: UnicornChat.definition(), manifestDirectory: MessagingFixture.manifest, now: { MessagingFixture.now })
  typealias Client = InProcessDomain.Client
  typealias App = Intentmesh_Messaging_V1_UnicornChatApp.Client<InProcessTransport.Client>

  static func context(_ user: String) -> Intentmesh_V1_RequestContext { .with { $0.userID = user } }

  static func message(to recipient: String, _ content: String, identifier: String) throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = "INSendMessageIntent"
      $0.identifier = identifier
      $0.payload = try .init(
        message: SendMessageIntent.with {
          $0.recipients = [.with { $0.displayName = recipient }]
          $0.content = content
        })
    }
  }

  /// Resolved and confirmed: the settled intent and its token.
  static func asked(_ client: Client, _ intent: Intentmesh_V1_Intent, user: String) async throws
    -> (Intentmesh_V1_Intent, String)
  {
    let asked = try await client.askForYes(intent, context: context(user))
    #expect(asked.complete)
    #expect(!asked.token.isEmpty)
    return (asked.intent, asked.token)
  }

  static func handle(_ client: Client, _ intent: Intentmesh_V1_Intent, token: String, user: String) async throws
    -> Intentmesh_V1_HandleResponse
  {
    try await client.handle(
      .with {
        $0.context = context(user); $0.intent = intent; $0.confirmationToken = token
      })
  }

  static func messages(_ app: App, of user: String) async throws -> [String] {
    try await app.listMessages(.init(), metadata: TestIdentity.metadata(for: user)).messages.map(\.content)
  }

  @Test("Scott's message lands in Diana's inbox while she is asked: her yes still sends")
  func deliveryMeanwhile() async throws {
    try await domain.serve { grpc, _, _ in
      let client = Client(wrapping: grpc)
      let (mine, yes) = try await Self.asked(
        client, try Self.message(to: "Celestra", "Rainbow polish at noon", identifier: "to-celestra"), user: "diana")
      let (scotts, scottsYes) = try await Self.asked(
        client, try Self.message(to: "Diana Huang", "See you at the meadow", identifier: "to-diana"), user: "scott")
      #expect(try await Self.handle(client, scotts, token: scottsYes, user: "scott").response.codeName == "success")
      let again = try await client.resolve(
        .with {
          $0.context = Self.context("diana"); $0.intent = mine
        })
      let sent = try await Self.handle(client, again.resolvedIntent, token: yes, user: "diana")
      #expect(sent.response.codeName == "success")
      let app = App(wrapping: grpc)
      #expect(try await Self.messages(app, of: "celestra").contains("Rainbow polish at noon"))
      #expect(try await Self.messages(app, of: "diana").contains("See you at the meadow"))
    }
  }

  @Test(
    "the recipient blocks Diana between the question and the yes: asked again the recipient is unsupported; the old intent's Handle fails and delivers nothing"
  )
  func blockedMeanwhile() async throws {
    try await domain.serve { grpc, _, _ in
      let client = Client(wrapping: grpc)
      let app = App(wrapping: grpc)
      let (mine, yes) = try await Self.asked(
        client, try Self.message(to: "Celestra", "are you there?", identifier: "blocked"), user: "diana")
      _ = try await app.setBlocked(
        .with {
          $0.handle = "diana@unicorn.chat"; $0.blocked = true
        }, metadata: TestIdentity.metadata(for: "celestra"))
      let again = try await client.resolve(
        .with {
          $0.context = Self.context("diana"); $0.intent = mine
        })
      #expect(!again.complete)
      #expect(again.resolutions.first?.results.first?.unsupported.reason.message.contains("turned off") == true)
      let refused = try await Self.handle(client, mine, token: yes, user: "diana")
      #expect(refused.response.codeName == "failure")
      #expect(refused.response.userActivity.userInfo["error"] == "unresolvedRecipient")
      #expect(try await !Self.messages(app, of: "celestra").contains("are you there?"))
    }
  }

  @Test("the content edited after the yes: FAILED_PRECONDITION naming content; nothing is sent")
  func editedContentIsNamed() async throws {
    try await domain.serve { grpc, _, _ in
      let client = Client(wrapping: grpc)
      let (mine, yes) = try await Self.asked(
        client, try Self.message(to: "Celestra", "noon", identifier: "edited"), user: "diana")
      var edited = mine
      var payload = try SendMessageIntent(unpackingAny: mine.payload)
      payload.content = "midnight"
      edited.payload = try .init(message: payload)
      await #expect {
        _ = try await Self.handle(client, edited, token: yes, user: "diana")
      } throws: { ($0 as? RPCError)?.changedParameters == ["content"] }
      #expect(try await !Self.messages(App(wrapping: grpc), of: "celestra").contains("midnight"))
    }
  }
}
