internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INRequestPaymentIntent ("Ask CJ to UnicornPay me 25 dollars to cover dinner"): payer from the
/// user's contacts (a UnicornPay user), an exact amount within the limits, an optional note. Handle
/// records a pending request to be paid into the user's default account in that currency and puts
/// it in the payer's bills, where they pay or decline it; no money moves yet.
struct RequestPaymentHandler: IntentHandler {
  typealias Intent = RequestPaymentIntent
  typealias Response = RequestPaymentIntentResponse

  static let intentClass = "INRequestPaymentIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Ready to request it?"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("payer", \.payer, prompt: "Who do you want to ask?", label: "From", resolve: Self.resolvePayer),
      .value(
        "currencyAmount", \.currencyAmount, prompt: "How much?", label: "Amount", resolve: Self.resolveCurrencyAmount),
      .value("note", \.note, label: "Note"),
    ]
  }

  static let codes = ProfileCheck.Outcome.Codes<Response.Code>(
    appLaunch: .failureRequiringAppLaunch, credentialsUnverified: .failureCredentialsUnverified,
    termsAcceptanceRequired: .failureTermsAndConditionsAcceptanceRequired, notEligible: .failureNotEligible)

  let store: any IntentStore
  let identifiers: any IdentifierGenerator

  init(store: any IntentStore, identifiers: any IdentifierGenerator) {
    self.store = store
    self.identifiers = identifiers
  }

  func resolvePayer(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Person> {
    guard intent.hasPayer, !intent.payer.isAbsent else { return .needsValue(prompt: "Who do you want to ask?") }
    let payers = try await store.read { try await PayeeResolver.load(userID: context.userID, from: $0) }
    return payers.resolvePayer(intent.payer)
  }

  func resolveCurrencyAmount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<CurrencyAmount> {
    let name = intent.hasPayer ? PayeeResolver.spokenName(of: intent.payer) : ""
    return AmountCheck.check(
      intent.hasCurrencyAmount ? intent.currencyAmount : nil
    )
    .resolution(prompt: name.isEmpty ? "How much?" : "How much do you want to ask \(name) for?")
  }

  struct Plan {
    var payer: StoredPayee
    var account: StoredAccount
    var amount: Money
    var note: String
    var requester: StoredPaymentProfile
    var payerProfile: StoredPaymentProfile
  }

  func makePlan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    Plan, IntentRefusal<Response>
  > {
    let profile = ProfileCheck.check(try await StoredPaymentProfile.load(context.userID, in: database))
    if let refusal: Answer = profile.refusal(Self.codes) { return .failure(IntentRefusal(refusal)) }
    let accounts = try await AccountResolver.load(userID: context.userID, profile: profile.readyProfile, from: database)
    let amount: Money
    switch AmountCheck.check(
      intent.hasCurrencyAmount ? intent.currencyAmount : nil)
    {
    case .valid(let money): amount = money
    case .violation(.currencyUnsupported): return .failure(IntentRefusal(.failurePaymentsCurrencyUnsupported))
    case .violation(.belowMinimum): return .failure(IntentRefusal(.failurePaymentsAmountBelowMinimum))
    case .violation(.aboveMaximum): return .failure(IntentRefusal(.failurePaymentsAmountAboveMaximum))
    case .missing, .missingCurrency, .invalid: return .failure(IntentRefusal(.failure, "invalidAmount"))
    }
    guard let account = accounts.defaultAccount(currency: amount.currency) else {
      return .failure(IntentRefusal(.failureNoBankAccount))
    }
    let payers = try await PayeeResolver.load(userID: context.userID, from: database)
    guard case .success = payers.resolvePayer(intent.payer), let payer = payers.payee(for: intent.payer),
      let requester = profile.readyProfile,
      let payerProfile = try await StoredPaymentProfile.load(payer.userID, in: database)
    else {
      return .failure(IntentRefusal(.failure, "unresolvedPayer"))
    }
    guard !UserIdentity.same(payerProfile.userID, requester.userID) else {
      return .failure(IntentRefusal(.failure, "payerIsPayee"))
    }
    // A request lands in the payer's book: its note is bounded, and so are a requester's requests
    // still pending with one payer.
    guard intent.note.count <= PaymentRequests.maximumNoteLength else {
      return .failure(IntentRefusal(.failure, "noteTooLong"))
    }
    guard
      try await PaymentRecordRepository.pendingRequests(from: requester.userID, to: payerProfile.userID, in: database)
        < PaymentRequests.maximumPending
    else { return .failure(IntentRefusal(.failure, "tooManyPendingRequests")) }
    return .success(
      Plan(
        payer: payer, account: account, amount: amount, note: intent.note, requester: requester,
        payerProfile: payerProfile))
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    try await store.read { database in
      switch try await makePlan(intent: intent, context: context, database: database) {
      case .failure(let refusal): return refusal.answer
      case .success(let plan):
        var response = Response(code: .ready)
        response.paymentRecord = Self.record(plan, status: .pending)
        return IntentAnswer(response)
      }
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let plan: Plan
    switch try await makePlan(intent: intent, context: context, database: database) {
    case .failure(let refusal): return refusal.answer
    case .success(let ready): plan = ready
    }
    try await PaymentRequests.send(
      from: plan.requester, to: plan.payerProfile, payerContact: plan.payer, account: plan.account,
      amount: plan.amount, note: plan.note, identifiers: identifiers, now: context.now, timeZone: context.timeZone,
      in: database)
    context.logger.info("requested payment", metadata: ["amount": "\(plan.amount)", "payer": "\(plan.payer.id)"])
    var response = Response(code: .success)
    response.paymentRecord = Self.record(plan, status: .pending)
    return IntentAnswer(response)
  }

  static func record(_ plan: Plan, status: PaymentStatus) -> PaymentRecord {
    .with {
      $0.payer = plan.payer.person
      $0.currencyAmount = plan.amount.currencyAmount
      $0.paymentMethod = plan.account.paymentMethod
      $0.note = plan.note
      $0.status = status
      $0.feeAmount = Money.zero(plan.amount.currency).currencyAmount
    }
  }
}
