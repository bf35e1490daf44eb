internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
internal import IntentsKit
internal import SQLKit

/// The seeds' people as demo data: Diana (the user of session 225's demo) writes to Scott — whose
/// unicorn name "Sparkle Sparkly" is in her vocabulary — Celestra, Buttercup, Pinky Nose (no
/// account) and Lucky Moontrotter (messages turned off), and has two contacts named Diana. Every
/// account and contact is made by the app's own calls (`MessagingApp`).
enum MessagingSeed {
  static let demoUser = "diana"

  static let contacts: [StoredContact] = [
    StoredContact(
      id: "scott", displayName: "Scott Andrus", givenName: "Scott", familyName: "Andrus", handle: "scott@unicorn.chat"),
    StoredContact(id: "celestra", displayName: "Celestra", givenName: "Celestra", handle: "celestra@unicorn.chat"),
    StoredContact(id: "buttercup", displayName: "Buttercup", givenName: "Buttercup", handle: "buttercup@unicorn.chat"),
    StoredContact(
      id: "pinky", displayName: "Pinky Nose", givenName: "Pinky", familyName: "Nose", handle: "pinky@meadow.example"),
    StoredContact(
      id: "lucky", displayName: "Lucky Moontrotter", givenName: "Lucky", familyName: "Moontrotter",
      handle: "lucky@unicorn.chat"),
    StoredContact(
      id: "vineet", displayName: "Vineet Khosla", givenName: "Vineet", familyName: "Khosla",
      handle: "vineet@unicorn.chat"),
    StoredContact(
      id: "diana-prince", displayName: "Diana Prince", givenName: "Diana", familyName: "Prince",
      handle: "diana.prince@unicorn.chat"),
    StoredContact(
      id: "diana-ross", displayName: "Diana Ross", givenName: "Diana", familyName: "Ross",
      handle: "diana.ross@unicorn.chat"),
  ]

  /// Fills an empty store; does nothing when the demo account exists.
  static func seed(_ store: any IntentStore) async throws {
    try await store.write { database in
      if try await MessagingAccountRepository.account(of: demoUser, in: database) != nil { return }
      let accounts = [
        StoredMessagingAccount(userID: demoUser, displayName: "Diana Huang", handle: "diana@unicorn.chat"),
        StoredMessagingAccount(userID: "scott", displayName: "Scott Andrus", handle: "scott@unicorn.chat"),
        StoredMessagingAccount(
          userID: "sleepy", displayName: "Sleepy Hollow", handle: "sleepy@unicorn.chat", signedIn: false),
        StoredMessagingAccount(
          userID: "gloomy", displayName: "Gloomy Cloud", handle: "gloomy@unicorn.chat", serviceEnabled: false),
        // The people Diana writes to, as users of their own (Pinky Nose is none; Lucky turned messages off).
        StoredMessagingAccount(userID: "celestra", displayName: "Celestra", handle: "celestra@unicorn.chat"),
        StoredMessagingAccount(userID: "buttercup", displayName: "Buttercup", handle: "buttercup@unicorn.chat"),
        StoredMessagingAccount(
          userID: "lucky", displayName: "Lucky Moontrotter", handle: "lucky@unicorn.chat", serviceEnabled: false),
        StoredMessagingAccount(userID: "vineet", displayName: "Vineet Khosla", handle: "vineet@unicorn.chat"),
        StoredMessagingAccount(
          userID: "diana-prince", displayName: "Diana Prince", handle: "diana.prince@unicorn.chat"),
        StoredMessagingAccount(userID: "diana-ross", displayName: "Diana Ross", handle: "diana.ross@unicorn.chat"),
      ]
      for account in accounts { try await MessagingApp.signUp(account, in: database) }
      for contact in contacts { _ = try await MessagingApp.addContact(contact, for: demoUser, in: database) }
      _ = try await MessagingApp.addContact(
        StoredContact(
          id: "diana", displayName: "Diana Huang", givenName: "Diana", familyName: "Huang", handle: "diana@unicorn.chat"
        ),
        for: "scott", in: database)
      _ = try await MessagingApp.addContact(contacts[1], for: "scott", in: database)
      try await MessageGroupRepository.add(
        .init(id: "rainbow-riders", name: "Rainbow Riders"), for: demoUser, in: database)
      try await MessageGroupRepository.add(.init(id: "siri-team", name: "Siri Team"), for: demoUser, in: database)
      try await UserVocabulary.replace(
        userID: demoUser, type: .contactName,
        with: [UserVocabulary.Entry(phrase: "Sparkle Sparkly", vocabularyIdentifier: "scott")], in: database)
      let base = Date(timeIntervalSince1970: 1_779_350_400)  // 2026-05-21 08:00 UTC
      let incoming: [(String, String, Double, Bool, Bool)] = [
        ("seed-1", "celestra", 0, true, false),
        ("seed-2", "buttercup", 3_600, false, true),
        ("seed-3", "celestra", 7_200, false, false),
        ("seed-4", "scott", 10_800, true, false),
      ]
      let texts = [
        "seed-1": "The rainbow polish is ready!",
        "seed-2": "Meet at the forest at noon?",
        "seed-3": "Are you ready for your presentation?",
        "seed-4": "It's pretty tough to type demo code with unicorn hands.",
      ]
      for (id, sender, offset, read, flagged) in incoming {
        try await MessageRepository.insert(
          StoredMessage(
            id: id, userID: demoUser, conversationID: "conversation-\(sender)", outgoing: false, senderID: sender,
            recipientIDs: [demoUser], content: texts[id] ?? "", sentAt: base.addingTimeInterval(offset), isRead: read,
            isFlagged: flagged), in: database)
      }
      try await MessageRepository.insert(
        StoredMessage(
          id: "seed-5", userID: demoUser, conversationID: "conversation-celestra", outgoing: false,
          senderID: "celestra",
          recipientIDs: [demoUser], content: "(audio)", sentAt: base.addingTimeInterval(9_000), messageType: 2),
        in: database)
    }
  }
}
