import SwiftProtobuf
import MessagingProtos
import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
import Logging
@testable import Messaging
import SQLKit

/// UnicornChat's handlers over its store (`DomainFixture`: migrated and seeded as the service does)
/// at a fixed time in Zurich: business logic tested without a network.
struct MessagingFixture {
  static let now = Date(timeIntervalSince1970: 1_779_440_400)  // 2026-05-22 09:00 UTC
  static let manifest = DomainFixture.manifest(of: "Messaging")

  let domain: DomainFixture
  let identifiers = SequentialIdentifierGenerator(prefix: "msg")
  var store: any IntentStore { domain.store }

  static func with<T: Sendable>(_ body: (MessagingFixture) async throws -> T) async throws -> T {
    try await DomainFixture.with(
      UnicornChat.definition(), user: MessagingSeed.demoUser, timeZone: TimeZone(identifier: "Europe/Zurich")!,
      start: now
    ) { try await body(MessagingFixture(domain: $0)) }
  }

  func context(user: String = MessagingSeed.demoUser, identifier: String = "") -> IntentContext {
    domain.context(user: user, identifier: identifier)
  }

  var send: SendMessageHandler { SendMessageHandler(store: store, identifiers: identifiers) }
  var search: SearchForMessagesHandler { SearchForMessagesHandler(store: store) }
  var setAttribute: SetMessageAttributeHandler { SetMessageAttributeHandler(store: store) }
  var visualCode: GetVisualCodeHandler { GetVisualCodeHandler(store: store) }

  func handle<H: IntentHandler>(_ handler: H, _ intent: H.Intent, user: String = MessagingSeed.demoUser) async throws
    -> H.Response
  {
    try await domain.handle(handler, intent, user: user).response
  }

  func messageCount(user: String = MessagingSeed.demoUser) async throws -> Int {
    try await store.read { try await MessageRepository.messages(of: user, in: $0).count }
  }
}

func person(_ name: String) -> Person { .with { $0.displayName = name } }
