internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INSearchForAccountsIntent (session 214: "What is the balance on my Rainbow Checking account?",
/// "How many miles do I have on my Sparkle card?"): the user's accounts by nickname, type,
/// organization and balance type; a search, so handle changes nothing.
struct SearchForAccountsHandler: IntentHandler {
  typealias Intent = SearchForAccountsIntent
  typealias Response = SearchForAccountsIntentResponse

  static let intentClass = "INSearchForAccountsIntent"
  static let handleHasEffects = false
  /// Every payments intent waits for the user's yes, a balance lookup included.
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Do you want to see your balances?"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("accountNickname", \.accountNickname, label: "Account", resolve: Self.resolveNickname),
      .value("accountType", \.accountType, label: "Type"),
      .value("organizationName", \.organizationName, label: "Organization", resolve: Self.resolveOrganization),
      .value("requestedBalanceType", \.requestedBalanceType, label: "Balance"),
    ]
  }

  static let codes = ProfileCheck.Outcome.Codes<Response.Code>(
    appLaunch: .failureRequiringAppLaunch, credentialsUnverified: .failureCredentialsUnverified,
    termsAcceptanceRequired: .failureTermsAndConditionsAcceptanceRequired, notEligible: .failureNotEligible)

  let store: any IntentStore

  init(store: any IntentStore) { self.store = store }

  func resolveNickname(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    let nickname = intent.accountNickname
    guard intent.hasAccountNickname, !nickname.spokenPhrase.isEmpty || !nickname.vocabularyIdentifier.isEmpty else {
      return .notRequired
    }
    let accounts = try await store.read { try await AccountResolver.load(userID: context.userID, from: $0) }
    let found = accounts.matching(nickname: nickname)
    switch found.count {
    case 0:
      return .unsupported(ResolutionReason(message: "You have no account called \(nickname.spokenPhrase)."))
    case 1: return .success(found[0].paymentAccount.nickname)
    default:
      return .disambiguation(found.map(\.paymentAccount.nickname), prompt: "Which \(nickname.spokenPhrase)?")
    }
  }

  func resolveOrganization(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    let organization = intent.organizationName
    guard intent.hasOrganizationName, !organization.spokenPhrase.isEmpty else { return .notRequired }
    let accounts = try await store.read { try await AccountResolver.load(userID: context.userID, from: $0) }
    let found = accounts.matching(organization: organization)
    guard let first = found.first else {
      return .unsupported(ResolutionReason(message: "You have no accounts at \(organization.spokenPhrase)."))
    }
    return .success(.with { $0.spokenPhrase = first.organizationName })
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let profile = ProfileCheck.check(try await StoredPaymentProfile.load(context.userID, in: database))
    if let refusal: Answer = profile.refusal(Self.codes) { return refusal }
    let resolver = try await AccountResolver.load(userID: context.userID, profile: profile.readyProfile, from: database)
    var found = resolver.accounts
    if intent.hasAccountNickname,
      !intent.accountNickname.spokenPhrase.isEmpty
        || !intent.accountNickname.vocabularyIdentifier.isEmpty
    {
      let named = Set(resolver.matching(nickname: intent.accountNickname).map(\.id))
      found = found.filter { named.contains($0.id) }
    }
    if intent.hasOrganizationName, !intent.organizationName.spokenPhrase.isEmpty {
      let held = Set(resolver.matching(organization: intent.organizationName).map(\.id))
      found = found.filter { held.contains($0.id) }
    }
    if intent.accountType != .unspecified { found = found.filter { $0.type == intent.accountType } }
    let requested = intent.requestedBalanceType
    if requested == .points || requested == .miles { found = found.filter { $0.secondaryBalanceType == requested } }
    guard !found.isEmpty else { return IntentAnswer(code: .failureAccountNotFound) }
    var response = Response(code: .success)
    response.accounts = found.map { account in
      var paymentAccount = account.paymentAccount
      if requested == .points || requested == .miles {
        // The balance asked for comes first; the money balance becomes the secondary one.
        paymentAccount.secondaryBalance = paymentAccount.balance
        paymentAccount.balance = .with {
          $0.balanceType = requested
          $0.units = account.secondaryBalance
        }
      }
      return paymentAccount
    }
    return IntentAnswer(response)
  }
}
