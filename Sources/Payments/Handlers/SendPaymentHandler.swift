internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INSendPaymentIntent ("send Buttercup 85 bucks on UnicornPay for rainbow polish"): payee from the
/// user's contacts (a UnicornPay user), an exact amount within UnicornPay's limits, an optional
/// note. Handle moves the money, once, from the user's default account in that currency to the
/// payee's default account in it, and records it on both sides.
struct SendPaymentHandler: IntentHandler {
  typealias Intent = SendPaymentIntent
  typealias Response = SendPaymentIntentResponse

  static let intentClass = "INSendPaymentIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Ready to send it?"
  /// Payments run beside each other (on PostgreSQL): what one reads that another may move is a
  /// balance, and the ledger's UPDATE checks that itself; each payment's rows are its own.
  static let handleConcurrency = WriteConcurrency.concurrent
  static var parameters: [IntentParameter<Self>] {
    [
      .value("payee", \.payee, prompt: "Who do you want to pay?", label: "To", resolve: Self.resolvePayee),
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

  func resolvePayee(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Person> {
    guard intent.hasPayee, !intent.payee.isAbsent else { return .needsValue(prompt: "Who do you want to pay?") }
    let (payees, accounts) = try await store.read { database in
      (
        try await PayeeResolver.load(userID: context.userID, from: database),
        try await AccountResolver.load(userID: context.userID, from: database)
      )
    }
    var shortfall = false
    if let money = AmountCheck.check(
      intent.hasCurrencyAmount ? intent.currencyAmount : nil
    ).money, let source = accounts.defaultAccount(currency: money.currency) {
      shortfall = source.available < money
    }
    return payees.resolvePayee(intent.payee, shortfall: shortfall)
  }

  func resolveCurrencyAmount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<CurrencyAmount> {
    let name = intent.hasPayee ? PayeeResolver.spokenName(of: intent.payee) : ""
    return AmountCheck.check(
      intent.hasCurrencyAmount ? intent.currencyAmount : nil
    )
    .resolution(prompt: name.isEmpty ? "How much?" : "How much do you want to send to \(name)?")
  }

  /// Everything handle needs, or the answer that refuses it.
  struct Plan {
    var payee: StoredPayee
    var source: StoredAccount
    var amount: Money
    var note: String
    var payment: UserPayment
  }

  func makePlan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    Plan, IntentRefusal<Response>
  > {
    let profile = ProfileCheck.check(try await StoredPaymentProfile.load(context.userID, in: database))
    if let refusal: Answer = profile.refusal(Self.codes) { return .failure(IntentRefusal(refusal)) }
    let accounts = try await AccountResolver.load(userID: context.userID, profile: profile.readyProfile, from: database)
    let check = AmountCheck.check(
      intent.hasCurrencyAmount ? intent.currencyAmount : nil)
    let amount: Money
    switch check {
    case .valid(let money): amount = money
    case .violation(.currencyUnsupported): return .failure(IntentRefusal(.failurePaymentsCurrencyUnsupported))
    case .violation(.belowMinimum): return .failure(IntentRefusal(.failurePaymentsAmountBelowMinimum))
    case .violation(.aboveMaximum): return .failure(IntentRefusal(.failurePaymentsAmountAboveMaximum))
    case .missing, .missingCurrency, .invalid: return .failure(IntentRefusal(.failure, "invalidAmount"))
    }
    guard let source = accounts.defaultAccount(currency: amount.currency) else {
      return .failure(IntentRefusal(.failureNoBankAccount))
    }
    guard amount <= source.available else { return .failure(IntentRefusal(.failureInsufficientFunds)) }
    let payees = try await PayeeResolver.load(userID: context.userID, from: database)
    guard case .success = payees.resolvePayee(intent.payee, shortfall: false),
      let payee = payees.payee(for: intent.payee), let payer = profile.readyProfile,
      let recipient = try await StoredPaymentProfile.load(payee.userID, in: database)
    else { return .failure(IntentRefusal(.failure, "unresolvedPayee")) }
    guard !UserIdentity.same(recipient.userID, payer.userID) else {
      return .failure(IntentRefusal(.failure, "payeeIsPayer"))
    }
    // The note is stored on the payee's side too: bounded like a request's.
    guard intent.note.count <= PaymentRequests.maximumNoteLength else {
      return .failure(IntentRefusal(.failure, "noteTooLong"))
    }
    // The payee is paid into their default account in the currency; without one they cannot take it.
    guard
      let destination = try await UserPayment.receivingAccount(
        of: recipient.userID, currency: amount.currency, in: database)
    else { return .failure(IntentRefusal(.failurePaymentsCurrencyUnsupported)) }
    let payment = UserPayment(
      payer: payer, source: source, payee: recipient, destination: destination, amount: amount, note: intent.note,
      payeeContact: payee)
    return .success(Plan(payee: payee, source: source, amount: amount, note: intent.note, payment: payment))
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
    do {
      try await plan.payment.post(
        identifiers: identifiers, intentIdentifier: context.intentIdentifier,
        at: context.now.epochMilliseconds, in: database)
    } catch Ledger.Failure.wouldOverdraw(let account) {
      // A concurrent payment spent what the plan saw: run again, to answer from the balance as it is.
      throw WriteConflict("account \(account) no longer holds \(plan.amount)")
    }
    context.logger.info("sent payment", metadata: ["amount": "\(plan.amount)", "payee": "\(plan.payee.id)"])
    var response = Response(code: .success)
    response.paymentRecord = Self.record(plan, status: .completed)
    return IntentAnswer(response)
  }

  static func record(_ plan: Plan, status: PaymentStatus) -> PaymentRecord {
    .with {
      $0.payee = plan.payee.person
      $0.currencyAmount = plan.amount.currencyAmount
      $0.paymentMethod = plan.source.paymentMethod
      $0.note = plan.note
      $0.status = status
      $0.feeAmount = Money.zero(plan.amount.currency).currencyAmount
    }
  }
}
