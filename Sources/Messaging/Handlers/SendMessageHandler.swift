internal import Logging
internal import MessagingProtos
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INSendMessageIntent: recipients from the user's contacts and vocabulary, content required, group
/// name optional; confirm checks the account; handle stores one message per recipient, and
/// delivers it to a recipient who is a user of this service (`Delivery`), in the same transaction.
struct SendMessageHandler: IntentHandler {
  typealias Intent = SendMessageIntent
  typealias Response = SendMessageIntentResponse

  static let intentClass = "INSendMessageIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Ready to send it?"
  static var parameters: [IntentParameter<Self>] {
    [
      .array("recipients", \.recipients, prompt: "To whom?", label: "To", resolve: Self.resolveRecipients),
      .value("content", \.content, prompt: "What do you want to say?", label: "Message", resolve: Self.resolveContent),
      .value("speakableGroupName", \.speakableGroupName, label: "Group", resolve: Self.resolveGroupName),
    ]
  }

  let store: any IntentStore
  let identifiers: any IdentifierGenerator

  init(store: any IntentStore, identifiers: any IdentifierGenerator) {
    self.store = store
    self.identifiers = identifiers
  }

  func resolveRecipients(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<Person>] {
    guard !intent.recipients.isEmpty else { return [.needsValue(prompt: "To whom?")] }
    let resolver = try await store.read { try await PersonResolver.load(userID: context.userID, from: $0) }
    return intent.recipients.map(resolver.resolveRecipient)
  }

  func resolveContent(intent: Intent, context: IntentContext) async throws -> ResolutionResult<String> {
    let content = intent.content.trimmingWhitespace()
    guard !content.isEmpty else {
      let names = intent.recipients.map(PersonResolver.spokenName).filter { !$0.isEmpty }
      let prompt =
        names.isEmpty ? "What do you want to say?" : "What do you want to say to \(Self.list(names))?"
      return .needsValue(prompt: prompt)
    }
    return .success(content)
  }

  func resolveGroupName(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    guard intent.hasSpeakableGroupName, !intent.speakableGroupName.spokenPhrase.isEmpty else { return .notRequired }
    let groups = try await store.read { try await MessageGroupRepository.groups(of: context.userID, in: $0) }
    return GroupNameResolver(groups: groups).resolve(intent.speakableGroupName)
  }

  /// The answer when the account cannot go ahead.
  static func refusal(_ outcome: AccountCheck.Outcome) -> Answer? {
    outcome.refusal(appLaunch: .failureRequiringAppLaunch, serviceNotAvailable: .failureMessageServiceNotAvailable)
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    let account = try await store.read { try await MessagingAccountRepository.account(of: context.userID, in: $0) }
    return Self.refusal(AccountCheck.check(account)) ?? IntentAnswer(code: .ready)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let outcome = AccountCheck.check(try await MessagingAccountRepository.account(of: context.userID, in: database))
    if let refusal = Self.refusal(outcome) { return refusal }
    guard let account = outcome.readyAccount else { return IntentAnswer(code: .failure) }
    let content = intent.content.trimmingWhitespace()
    let resolver = try await PersonResolver.load(userID: context.userID, from: database)
    var recipients: [StoredContact] = []
    for person in intent.recipients {
      guard case .success(let resolved) = resolver.resolveRecipient(person),
        let contact = resolver.contacts.first(where: { $0.id == resolved.customIdentifier })
      else {
        return IntentAnswer(
          code: .failure,
          userActivity: UserActivityDraft(userInfo: [
            "error": "unresolvedRecipient", "recipient": PersonResolver.spokenName(of: person),
          ]))
      }
      recipients.append(contact)
    }
    guard !recipients.isEmpty, !content.isEmpty else {
      return IntentAnswer(
        code: .failure,
        userActivity: UserActivityDraft(userInfo: [
          "error": recipients.isEmpty ? "noRecipients" : "noContent"
        ]))
    }
    let conversation = intent.conversationIdentifier.isEmpty ? identifiers.next() : intent.conversationIdentifier
    let groupName = intent.hasSpeakableGroupName ? intent.speakableGroupName.spokenPhrase : ""
    var sent: [ChatMessage] = []
    for contact in recipients {
      let message = StoredMessage(
        id: identifiers.next(), userID: context.userID, conversationID: conversation, outgoing: true,
        senderID: context.userID, recipientIDs: [contact.id], content: content, groupName: groupName,
        sentAt: context.now, isRead: true, intentIdentifier: context.intentIdentifier)
      try await MessageRepository.insert(message, in: database)
      try await Delivery.deliver(message, from: account, to: contact, identifiers: identifiers, in: database)
      sent.append(ChatMessage(message, account: account, contacts: resolver.contacts))
    }
    context.logger.info("sent message", metadata: ["recipients": "\(recipients.count)"])
    var response = Response(code: .success)
    response.sentMessages = sent
    response.sentMessage = sent[0]
    return IntentAnswer(response)
  }

  /// "Celestra", "Celestra and Buttercup", "Celestra, Buttercup and Pinky Nose".
  static func list(_ names: [String]) -> String {
    guard names.count > 1 else { return names.first ?? "" }
    return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
  }
}
