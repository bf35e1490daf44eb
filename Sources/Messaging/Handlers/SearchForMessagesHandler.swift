internal import Logging
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import MessagingProtos
internal import Foundation
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INSearchForMessagesIntent: recipients, senders, attributes, date range, group names and search
/// terms; too many results is SiriKit's failureMessageTooManyResults. Followed live
/// (StartSendingUpdates), the search answers what it finds now, then each message that arrives
/// and matches it.
struct SearchForMessagesHandler: LiveUpdatingIntentHandler {
  typealias Intent = SearchForMessagesIntent
  typealias Response = SearchForMessagesIntentResponse

  static let intentClass = "INSearchForMessagesIntent"
  static let handleHasEffects = false
  /// More matches than this asks the user to narrow the search.
  static let maximumResults = 50
  static var parameters: [IntentParameter<Self>] {
    [
      .array("recipients", \.recipients, label: "To", resolve: Self.resolveRecipients),
      .array("senders", \.senders, label: "From", resolve: Self.resolveSenders),
      .value("attributes", \.attributes, label: "Attributes"),
      .value("dateTimeRange", \.dateTimeRange, label: "Sent"),
      .array("speakableGroupNames", \.speakableGroupNames, label: "Groups", resolve: Self.resolveGroupNames),
      .array("searchTerms", \.searchTerms, label: "Containing"),
    ]
  }

  let store: any IntentStore
  /// How often a live search looks whether the user's mailbox received anything (one row read).
  let arrivalPollInterval: Duration

  init(store: any IntentStore, arrivalPollInterval: Duration = .milliseconds(250)) {
    self.store = store
    self.arrivalPollInterval = arrivalPollInterval
  }

  func resolveRecipients(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<Person>] {
    try await resolvePeople(intent.recipients, context: context)
  }

  func resolveSenders(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<Person>] {
    try await resolvePeople(intent.senders, context: context)
  }

  func resolvePeople(_ people: [Person], context: IntentContext) async throws -> [ResolutionResult<Person>] {
    guard !people.isEmpty else { return [.notRequired] }
    let resolver = try await store.read { try await PersonResolver.load(userID: context.userID, from: $0) }
    return people.map(resolver.resolveSearchPerson)
  }

  func resolveGroupNames(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<SpeakableString>] {
    guard !intent.speakableGroupNames.isEmpty else { return [.notRequired] }
    let groups = try await store.read { try await MessageGroupRepository.groups(of: context.userID, in: $0) }
    return intent.speakableGroupNames.map(GroupNameResolver(groups: groups).resolve)
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
    let resolver = try await PersonResolver.load(userID: context.userID, from: database)
    let interval: (start: Date?, end: Date?) =
      intent.hasDateTimeRange
      ? CalendarDates.interval(of: intent.dateTimeRange, timeZone: context.timeZone, reference: context.now)
      : (nil, nil)
    let stored = try await MessageRepository.messages(
      of: context.userID, from: interval.start, to: interval.end, in: database)
    let filter = MessageFilter(intent: intent, resolver: resolver)
    let matches = stored.filter(filter.matches)
    guard matches.count <= Self.maximumResults else {
      return IntentAnswer(
        code: .failureMessageTooManyResults,
        userActivity: UserActivityDraft(userInfo: ["matches": String(matches.count)]))
    }
    var response = Response(code: .success)
    response.messages = matches.map { ChatMessage($0, account: account, contacts: resolver.contacts) }
    return IntentAnswer(response)
  }
}

/// The conditions of a message search, applied to stored messages.
struct MessageFilter {
  let senderIDs: Set<String>?
  let recipientIDs: Set<String>?
  let attributes: MessageAttributeOptions
  let groupNames: [String]
  let searchTerms: [String]
  let termsOperator: Intentmesh_V1_ConditionalOperator
  let identifiers: Set<String>
  let conversationIdentifiers: Set<String>

  init(intent: SearchForMessagesIntent, resolver: PersonResolver) {
    func ids(_ people: [Person]) -> Set<String>? {
      people.isEmpty ? nil : Set(people.flatMap { resolver.candidates(for: $0).map(\.id) })
    }
    senderIDs = ids(intent.senders)
    recipientIDs = ids(intent.recipients)
    attributes = intent.attributes
    groupNames = intent.speakableGroupNames.map(\.spokenPhrase)
    searchTerms = intent.searchTerms.filter { !$0.isEmpty }
    termsOperator = intent.searchTermsOperator
    identifiers = Set(intent.identifiers)
    conversationIdentifiers = Set(intent.conversationIdentifiers)
  }

  func matches(_ message: StoredMessage) -> Bool {
    if let senderIDs, message.outgoing || !senderIDs.contains(message.senderID) { return false }
    if let recipientIDs, !message.outgoing || recipientIDs.isDisjoint(with: message.recipientIDs) { return false }
    if attributes.read != attributes.unread, message.isRead != attributes.read { return false }
    if attributes.flagged != attributes.unflagged, message.isFlagged != attributes.flagged { return false }
    if attributes.played, !message.isPlayed { return false }
    if !groupNames.isEmpty, !groupNames.contains(where: { NameMatching.matches($0, message.groupName) }) {
      return false
    }
    if !identifiers.isEmpty, !identifiers.contains(message.id) { return false }
    if !conversationIdentifiers.isEmpty, !conversationIdentifiers.contains(message.conversationID) { return false }
    if !searchTerms.isEmpty {
      let found = searchTerms.map {
        message.content.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil
      }
      switch termsOperator {
      case .any: if !found.contains(true) { return false }
      case .none: if found.contains(true) { return false }
      default: if found.contains(false) { return false }
      }
    }
    return true
  }
}
