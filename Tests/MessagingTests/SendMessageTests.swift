import SwiftProtobuf
import MessagingProtos
import Foundation
import IntentMeshProtos
@testable import Messaging
@testable import IntentsKit
import IntentsKitTesting
import Testing

@Suite("INSendMessageIntent")
struct SendMessageTests {
  @Test("one contact → success with the canonical person")
  func oneMatch() async throws {
    try await MessagingFixture.with { fixture in
      let results = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person("celestra")] }, context: fixture.context())
      let resolved = try #require(results.first?.successValue)
      #expect(resolved.displayName == "Celestra")
      #expect(resolved.customIdentifier == "celestra")
      #expect(resolved.personHandle.value == "celestra@unicorn.chat")
    }
  }

  @Test("a unicorn name in the user's vocabulary finds the contact (Sparkle Sparkly → Scott)")
  func vocabularyName() async throws {
    try await MessagingFixture.with { fixture in
      let results = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person("Sparkle Sparkly")] }, context: fixture.context())
      #expect(results.first?.successValue?.displayName == "Scott Andrus")
      // Another user has no such vocabulary.
      let other = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person("Sparkle Sparkly")] }, context: fixture.context(user: "scott"))
      #expect(other.first?.unsupportedReason?.name == "noValidHandle")
    }
  }

  @Test("two contacts share a first name → disambiguation, and the picked option resolves")
  func disambiguation() async throws {
    try await MessagingFixture.with { fixture in
      let results = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person("Diana")] }, context: fixture.context())
      guard case .disambiguation(let options, let prompt) = try #require(results.first) else {
        Issue.record("expected disambiguation")
        return
      }
      #expect(options.map(\.displayName) == ["Diana Prince", "Diana Ross"])
      #expect(prompt == "Which Diana?")
      let picked = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [options[1]] }, context: fixture.context())
      #expect(picked.first?.successValue?.displayName == "Diana Ross")
    }
  }

  @Test(
    "unusable recipients are unsupported with SiriKit's reason",
    arguments: [
      ("Bigfoot", "noValidHandle"), ("Pinky Nose", "noAccount"),
      ("Lucky", "messagingServiceNotEnabledForRecipient"),
    ])
  func unsupported(name: String, reason: String) async throws {
    try await MessagingFixture.with { fixture in
      let results = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person(name)] }, context: fixture.context())
      let found = try #require(results.first?.unsupportedReason)
      #expect(found.name == reason)
      #expect(found.type == "intentmesh.messaging.v1.SendMessageRecipientUnsupportedReason")
      #expect(!found.message.isEmpty)
    }
  }

  @Test("an unknown identifier is requestedHandleInvalid")
  func unknownIdentifier() async throws {
    try await MessagingFixture.with { fixture in
      let results = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [.with { $0.customIdentifier = "ghost" }] }, context: fixture.context())
      #expect(results.first?.unsupportedReason?.name == "requestedHandleInvalid")
    }
  }

  @Test("one result per recipient, in order; none given → needs value \"To whom?\"")
  func perElement() async throws {
    try await MessagingFixture.with { fixture in
      let results = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person("Celestra"), person("Diana"), person("Pinky Nose")] },
        context: fixture.context())
      #expect(results.count == 3)
      #expect(results[0].successValue != nil)
      #expect(results[1].disambiguationOptions?.count == 2)
      #expect(results[2].unsupportedReason?.name == "noAccount")
      let none = try await fixture.send.resolveRecipients(intent: .init(), context: fixture.context())
      #expect(none.count == 1 && none[0].needsValuePrompt == "To whom?")
    }
  }

  @Test("empty content needs a value, asked of the recipients")
  func content() async throws {
    try await MessagingFixture.with { fixture in
      let missing = try await fixture.send.resolveContent(
        intent: .with {
          $0.recipients = [person("Celestra")]; $0.content = "  "
        }, context: fixture.context())
      #expect(missing.needsValuePrompt == "What do you want to say to Celestra?")
      let two = try await fixture.send.resolveContent(
        intent: .with { $0.recipients = [person("Celestra"), person("Buttercup")] }, context: fixture.context())
      #expect(two.needsValuePrompt == "What do you want to say to Celestra and Buttercup?")
      let given = try await fixture.send.resolveContent(
        intent: .with { $0.content = " Hi " }, context: fixture.context())
      #expect(given.successValue == "Hi")
    }
  }

  @Test("group names: absent → not required; known → success; unknown → unsupported")
  func groupName() async throws {
    try await MessagingFixture.with { fixture in
      #expect(try await fixture.send.resolveGroupName(intent: .init(), context: fixture.context()).isNotRequired)
      let known = try await fixture.send.resolveGroupName(
        intent: .with { $0.speakableGroupName = .with { $0.spokenPhrase = "rainbow riders" } },
        context: fixture.context())
      #expect(known.successValue?.vocabularyIdentifier == "rainbow-riders")
      let unknown = try await fixture.send.resolveGroupName(
        intent: .with { $0.speakableGroupName = .with { $0.spokenPhrase = "Goblins" } }, context: fixture.context())
      #expect(unknown.unsupportedReason != nil)
    }
  }

  @Test(
    "confirm checks the account",
    arguments: [
      ("diana", SendMessageIntentResponse.Code.ready, ""), ("sleepy", .failureRequiringAppLaunch, "signedOut"),
      ("nobody", .failureRequiringAppLaunch, "noAccount"), ("gloomy", .failureMessageServiceNotAvailable, ""),
    ])
  func confirm(user: String, code: SendMessageIntentResponse.Code, error: String) async throws {
    try await MessagingFixture.with { fixture in
      let answer = try await fixture.send.confirm(intent: .init(), context: fixture.context(user: user))
      #expect(answer.response.code == code)
      #expect((answer.userActivity?.userInfo["error"] ?? "") == error)
    }
  }

  @Test("handle stores one message per recipient and answers with them")
  func handle() async throws {
    try await MessagingFixture.with { fixture in
      let before = try await fixture.messageCount()
      let response = try await fixture.handle(
        fixture.send,
        .with {
          $0.recipients = [person("Celestra"), person("Sparkle Sparkly")]
          $0.content = "Are you ready for your presentation?"
        })
      #expect(response.code == .success)
      #expect(response.sentMessages.count == 2)
      #expect(response.sentMessages.map { $0.recipients.map(\.displayName) } == [["Celestra"], ["Scott Andrus"]])
      #expect(response.sentMessage == response.sentMessages[0])
      #expect(
        response.sentMessages.allSatisfy {
          $0.sender.displayName == "Diana Huang" && $0.conversationIdentifier == "msg-1"
        })
      #expect(try await fixture.messageCount() == before + 2)
    }
  }

  @Test("handle refuses what resolution would refuse, and stores nothing")
  func handleRefuses() async throws {
    try await MessagingFixture.with { fixture in
      let before = try await fixture.messageCount()
      let unresolved = try await fixture.handle(
        fixture.send,
        .with {
          $0.recipients = [person("Diana")]; $0.content = "hi"
        })
      #expect(unresolved.code == .failure)
      let empty = try await fixture.handle(fixture.send, .with { $0.recipients = [person("Celestra")] })
      #expect(empty.code == .failure)
      let signedOut = try await fixture.handle(
        fixture.send,
        .with {
          $0.recipients = [person("Celestra")]; $0.content = "x"
        }, user: "sleepy")
      #expect(signedOut.code == .failureRequiringAppLaunch)
      #expect(try await fixture.messageCount() == before)
    }
  }

  @Test("a contact is the user who held the handle when added: claiming Pinky's handle later receives nothing")
  func handleClaimedLater() async throws {
    try await MessagingFixture.with { fixture in
      try await fixture.store.write { database in
        try await MessagingApp.signUp(
          StoredMessagingAccount(userID: "mallory", displayName: "Mallory", handle: "pinky@meadow.example"),
          in: database)
      }
      let contact = try await fixture.store.read {
        try await ContactRepository.contact(withHandle: "pinky@meadow.example", of: MessagingSeed.demoUser, in: $0)
      }
      #expect(contact?.hasAccount == false && contact?.userID == "")
      let resolved = try await fixture.send.resolveRecipients(
        intent: .with { $0.recipients = [person("Pinky Nose")] }, context: fixture.context())
      #expect(resolved.first?.unsupportedReason?.name == "noAccount")
      let mallorys = try await fixture.store.read {
        try await MessageRepository.messages(of: "mallory", conversation: nil, unreadOnly: false, limit: 10, in: $0)
      }
      #expect(mallorys.isEmpty)
      // Diana adds the handle again, meaning its holder now: bound.
      let bound = try await fixture.store.write { database in
        try await MessagingApp.addContact(
          StoredContact(id: "pinky-2", displayName: "Pinky Nose", givenName: "Pinky", handle: "pinky@meadow.example"),
          for: MessagingSeed.demoUser, in: database)
      }
      #expect(bound.id == "pinky" && bound.userID == "mallory" && bound.hasAccount)
    }
  }
}
