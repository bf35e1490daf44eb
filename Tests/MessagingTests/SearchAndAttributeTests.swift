import SwiftProtobuf
import MessagingProtos
import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import Messaging
import IntentsKitTesting
import Testing

@Suite("INSearchForMessagesIntent and INSetMessageAttributeIntent")
struct SearchAndAttributeTests {
  func search(_ fixture: MessagingFixture, _ intent: SearchForMessagesIntent) async throws
    -> SearchForMessagesIntentResponse
  {
    try await fixture.store.read {
      try await fixture.search.handle(intent: intent, context: fixture.context(), database: $0).response
    }
  }

  @Test("unread messages from Celestra")
  func unreadFromCelestra() async throws {
    try await MessagingFixture.with { fixture in
      let response = try await search(
        fixture,
        .with {
          $0.senders = [person("Celestra")]; $0.attributes = .with { $0.unread = true }
        })
      #expect(response.code == .success)
      #expect(response.messages.map(\.identifier) == ["seed-5", "seed-3"])
      #expect(response.messages.allSatisfy { $0.sender.displayName == "Celestra" && $0.attributes.unread })
    }
  }

  @Test("flagged, by search terms and operators, by date range")
  func filters() async throws {
    try await MessagingFixture.with { fixture in
      #expect(
        try await search(fixture, .with { $0.attributes = .with { $0.flagged = true } }).messages.map(\.identifier) == [
          "seed-2"
        ])
      #expect(
        try await search(fixture, .with { $0.searchTerms = ["rainbow", "POLISH"] }).messages.map(\.identifier) == [
          "seed-1"
        ])
      let any = try await search(
        fixture,
        .with {
          $0.searchTerms = ["rainbow", "forest"]; $0.searchTermsOperator = .any
        })
      #expect(Set(any.messages.map(\.identifier)) == ["seed-1", "seed-2"])
      let none = try await search(
        fixture,
        .with {
          $0.searchTerms = ["rainbow", "forest"]; $0.searchTermsOperator = .none
        })
      #expect(Set(none.messages.map(\.identifier)) == ["seed-3", "seed-4", "seed-5"])
      // 2026-05-21 in Zurich holds every seed message; the day before holds none.
      let day = try await search(
        fixture,
        .with {
          $0.dateTimeRange = .with {
            $0.startDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 21; $0.hour = 12
            }
            $0.endDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 21; $0.hour = 12; $0.minute = 30
            }
          }
        })
      #expect(day.messages.map(\.identifier) == ["seed-5", "seed-3"])
      let before = try await search(
        fixture,
        .with {
          $0.dateTimeRange = .with {
            $0.endDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 20
            }
          }
        })
      #expect(before.messages.map(\.identifier) == [])
    }
  }

  @Test("sent messages are found by recipient")
  func byRecipient() async throws {
    try await MessagingFixture.with { fixture in
      _ = try await fixture.handle(
        fixture.send,
        .with {
          $0.recipients = [person("Buttercup")]; $0.content = "Polish tomorrow?"
        })
      let found = try await search(fixture, .with { $0.recipients = [person("Buttercup")] })
      #expect(found.messages.map(\.content) == ["Polish tomorrow?"])
      #expect(found.messages[0].recipients.map(\.displayName) == ["Buttercup"])
    }
  }

  @Test("more than fifty matches is failureMessageTooManyResults")
  func tooMany() async throws {
    try await MessagingFixture.with { fixture in
      try await fixture.store.write { database in
        for n in 0..<60 {
          try await MessageRepository.insert(
            StoredMessage(
              id: "bulk-\(n)", userID: "diana", conversationID: "bulk", outgoing: false, senderID: "buttercup",
              recipientIDs: ["diana"], content: "bulk \(n)", sentAt: MessagingFixture.now), in: database)
        }
      }
      let response = try await search(fixture, .with { $0.senders = [person("Buttercup")] })
      #expect(response.code == .failureMessageTooManyResults)
      #expect(response.messages.isEmpty)
    }
  }

  @Test("search resolves people and groups, and needs none of them")
  func resolveSearch() async throws {
    try await MessagingFixture.with { fixture in
      let senders = try await fixture.search.resolveSenders(
        intent: .with { $0.senders = [person("Diana"), person("Yeti")] }, context: fixture.context())
      #expect(senders[0].disambiguationOptions?.count == 2)
      #expect(senders[1].unsupportedReason != nil)
      #expect(
        try await fixture.search.resolveRecipients(intent: .init(), context: fixture.context()).first?.isNotRequired
          == true)
      let groups = try await fixture.search.resolveGroupNames(
        intent: .with { $0.speakableGroupNames = [.with { $0.spokenPhrase = "Siri Team" }] }, context: fixture.context()
      )
      #expect(groups.first?.successValue?.vocabularyIdentifier == "siri-team")
    }
  }

  @Test("marks messages read, flagged, played; refuses what cannot be set")
  func attributes() async throws {
    try await MessagingFixture.with { fixture in
      #expect(
        try await fixture.setAttribute.resolveAttribute(intent: .init(), context: fixture.context()).needsValuePrompt
          != nil)
      let read = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.identifiers = ["seed-3"]; $0.attribute = .read
        })
      #expect(read.code == .success)
      let unread = try await search(
        fixture,
        .with {
          $0.senders = [person("Celestra")]; $0.attributes = .with { $0.unread = true }
        })
      #expect(unread.messages.map(\.identifier) == ["seed-5"])
      let missing = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.identifiers = ["seed-3", "nope"]; $0.attribute = .flagged
        })
      #expect(missing.code == .failureMessageNotFound)
      let textPlayed = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.identifiers = ["seed-1"]; $0.attribute = .played
        })
      #expect(textPlayed.code == .failureMessageAttributeNotSet)
      let audioPlayed = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.identifiers = ["seed-5"]; $0.attribute = .played
        })
      #expect(audioPlayed.code == .success)
      // Another user's message is not found.
      let foreign = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.identifiers = ["seed-1"]; $0.attribute = .read
        }, user: "scott")
      #expect(foreign.code == .failureMessageNotFound)
    }
  }
}
