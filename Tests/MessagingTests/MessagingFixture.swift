import SwiftProtobuf
import MessagingProtos
import Foundation
import IntentMeshProtos
import IntentsKit
import IntentsKitTesting
import Logging
@testable import Messaging
import SQLKit

/// UnicornChat's store, migrated and seeded in a fresh SQLite file, with handlers over it and a
/// fixed clock: business logic tested without a network.
struct MessagingFixture {
  static let now = Date(timeIntervalSince1970: 1_779_440_400)  // 2026-05-22 09:00 UTC
  static let manifest = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Services/Messaging/Manifest")

  let store: any IntentStore
  let identifiers = SequentialIdentifierGenerator(prefix: "msg")

  static func with<T: Sendable>(_ body: (MessagingFixture) async throws -> T) async throws -> T {
    try await TestStore.with(named: "messaging-test") { store in
      try await SchemaMigrator.migrate(store, SchemaMigrator.runtime + MessagingSchema.migrations)
      try await MessagingSeed.seed(store)
      return try await body(MessagingFixture(store: store))
    }
  }

  func context(user: String = MessagingSeed.demoUser, identifier: String = "") -> IntentContext {
    IntentContext(
      userID: user, timeZone: TimeZone(identifier: "Europe/Zurich")!, intentIdentifier: identifier, now: Self.now)
  }

  var send: SendMessageHandler { SendMessageHandler(store: store, identifiers: identifiers) }
  var search: SearchForMessagesHandler { SearchForMessagesHandler(store: store) }
  var setAttribute: SetMessageAttributeHandler { SetMessageAttributeHandler(store: store) }
  var visualCode: GetVisualCodeHandler { GetVisualCodeHandler(store: store) }

  func handle<H: IntentHandler>(_ handler: H, _ intent: H.Intent, user: String = MessagingSeed.demoUser) async throws
    -> H.Response
  {
    let context = context(user: user, identifier: "test-intent")
    return try await store.write { try await handler.handle(intent: intent, context: context, database: $0).response }
  }

  func messageCount(user: String = MessagingSeed.demoUser) async throws -> Int {
    try await store.read { try await MessageRepository.messages(of: user, in: $0).count }
  }
}

func person(_ name: String) -> Person { .with { $0.displayName = name } }
