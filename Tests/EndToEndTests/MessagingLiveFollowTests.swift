import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import MessagingProtos
import SwiftProtobuf
import Synchronization
import Testing

/// A message search followed live (StartSendingUpdates on INSearchForMessagesIntent), through the
/// gateway over real sockets: Ben follows "messages from Ava"; what Ava writes afterwards reaches
/// the stream, each message once and in order; what Cleo writes does not; another user following
/// the same search sees none of Ben's mail.
@Suite("UnicornChat: following a message search live, through the gateway", .serialized)
struct MessagingLiveFollowTests {
  typealias App = MessagingDeliveryTests.App
  typealias Extension = MessagingDeliveryTests.Extension

  static func signUp(_ user: String, _ name: String, on app: App) async throws {
    _ = try await app.signUp(
      .with {
        $0.displayName = name; $0.handle = "\(user)@unicorn.chat"
      }, metadata: TestIdentity.metadata(for: user))
  }

  /// Adds contacts to `user`'s book (after their users signed up: a contact is bound to the user
  /// who holds its handle when it is added).
  static func add(_ contacts: [(String, String)], for user: String, on app: App) async throws {
    for (contactName, handle) in contacts {
      _ = try await app.addContact(
        .with {
          $0.contact = .with {
            $0.displayName = contactName; $0.handle = handle
          }
        }, metadata: TestIdentity.metadata(for: user))
    }
  }

  static func message(_ to: String, _ content: String) throws -> Intentmesh_V1_Intent {
    try MessagingDeliveryTests.intent(
      "INSendMessageIntent",
      Intentmesh_Messaging_V1_SendMessageIntent.with {
        $0.recipients = [.with { $0.displayName = to }]; $0.content = content
      }, identifier: UUID().uuidString)
  }

  /// The contents of each answer a live search sends, in order.
  final class Answers: Sendable {
    let contents = Mutex<[[String]]>([])
    var all: [[String]] { contents.withLock { $0 } }
  }

  /// Follows "messages from Ava" as `user` until `count` messages came in all answers after the
  /// first, or 15 seconds passed.
  static func follow(as user: String, on client: Extension, into answers: Answers, until count: Int) async throws {
    let search = try MessagingDeliveryTests.intent(
      "INSearchForMessagesIntent",
      Intentmesh_Messaging_V1_SearchForMessagesIntent.with { $0.senders = [.with { $0.displayName = "Ava" }] })
    let deadline = ContinuousClock.now + .seconds(15)
    try await client.startSendingUpdates(
      .with {
        $0.context = MessagingDeliveryTests.context(user); $0.intent = search
      }
    ) { response in
      for try await update in response.messages {
        let found = try Intentmesh_Messaging_V1_SearchForMessagesIntentResponse(
          unpackingAny: update.response.payload)
        answers.contents.withLock { $0.append(found.messages.map(\.content)) }
        if answers.all.dropFirst().joined().count >= count || ContinuousClock.now > deadline { return }
      }
    }
  }

  @Test("Ben follows messages from Ava: each new one arrives once, in order; Cleo's do not; Eve's stream stays empty")
  func followLive() async throws {
    let file = TemporaryDatabaseFile("live-follow")
    defer { file.remove() }
    let service = try await ServiceProcess("messaging-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(service.port)"])
    try await MessagingDeliveryTests().withClients(port: gateway.port) { app, client in
      for (user, name) in [
        ("ava", "Ava Stardust"), ("ben", "Ben Moonbeam"), ("cleo", "Cleo Comet"), ("eve", "Eve Shadow"),
      ] {
        try await Self.signUp(user, name, on: app)
      }
      try await Self.add([("Ben Moonbeam", "ben@unicorn.chat")], for: "ava", on: app)
      try await Self.add(
        [("Ava Stardust", "ava@unicorn.chat"), ("Cleo Comet", "cleo@unicorn.chat")], for: "ben", on: app)
      try await Self.add([("Ben Moonbeam", "ben@unicorn.chat")], for: "cleo", on: app)
      try await Self.add([("Ava Stardust", "ava@unicorn.chat")], for: "eve", on: app)
      let before = try await MessagingDeliveryTests.handle(try Self.message("Ben", "one"), as: "ava", on: client)
      #expect(before.response.codeName == "success")

      let ben = Answers()
      let eve = Answers()
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await Self.follow(as: "ben", on: client, into: ben, until: 2) }
        group.addTask { try await Self.follow(as: "eve", on: client, into: eve, until: 1) }
        group.addTask {
          try await Task.sleep(for: .seconds(20))
          throw CancellationError()  // Ben's stream never got both messages
        }
        // Both streams answered the search as it stands before anything new is sent.
        try await waitUntil("both streams answered the search") { !ben.all.isEmpty && !eve.all.isEmpty }
        for (sender, to, content) in [("ava", "Ben", "two"), ("cleo", "Ben", "not from Ava"), ("ava", "Ben", "three")] {
          let sent = try await MessagingDeliveryTests.handle(try Self.message(to, content), as: sender, on: client)
          #expect(sent.response.codeName == "success")
        }
        try await group.next()  // Ben's stream, with two new messages (else the watchdog's error).
        try await Task.sleep(for: .milliseconds(600))  // Eve's stream had time to (wrongly) see them.
        group.cancelAll()
        while let _ = try? await group.next() {}
      }
      #expect(ben.all.first == ["one"])
      #expect(Array(ben.all.dropFirst().joined()) == ["two", "three"], "\(ben.all)")
      #expect(eve.all == [[]], "\(eve.all)")
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await service.stop() == 0)
  }
}
