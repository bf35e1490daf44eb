internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INTransferMoneyIntent (session 214: "Transfer $10 tomorrow from Rainbow Savings to checking"):
/// two of the user's accounts in one currency, an exact amount, an optional date (today or later)
/// and note. Handle moves the money and the fee at once, or holds it until a later date.
struct TransferMoneyHandler: IntentHandler {
  typealias Intent = TransferMoneyIntent
  typealias Response = TransferMoneyIntentResponse

  static let intentClass = "INTransferMoneyIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Ready to transfer it?"
  static var parameters: [IntentParameter<Self>] {
    [
      .value(
        "fromAccount", \.fromAccount, prompt: "From which account?", label: "From", resolve: Self.resolveFromAccount),
      .value("toAccount", \.toAccount, prompt: "To which account?", label: "To", resolve: Self.resolveToAccount),
      .value(
        "transactionAmount", \.transactionAmount, prompt: "How much do you want to transfer?", label: "Amount",
        resolve: Self.resolveAmount),
      .value(
        "transactionScheduledDate", \.transactionScheduledDate, label: "Date", resolve: Self.resolveScheduledDate),
      .value("transactionNote", \.transactionNote, label: "Note"),
    ]
  }

  static let codes = ProfileCheck.Outcome.Codes<Response.Code>(
    appLaunch: .failureRequiringAppLaunch, credentialsUnverified: .failureCredentialsUnverified,
    termsAcceptanceRequired: nil, notEligible: nil)

  let store: any IntentStore
  let identifiers: any IdentifierGenerator

  init(store: any IntentStore, identifiers: any IdentifierGenerator) {
    self.store = store
    self.identifiers = identifiers
  }

  func resolveFromAccount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<PaymentAccount> {
    let accounts = try await store.read { try await AccountResolver.load(userID: context.userID, from: $0) }
    return accounts.resolve(intent.fromAccount, prompt: "From which account?")
  }

  func resolveToAccount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<PaymentAccount> {
    let accounts = try await store.read { try await AccountResolver.load(userID: context.userID, from: $0) }
    let result = accounts.resolve(intent.toAccount, prompt: "To which account?")
    guard case .success = result, let to = accounts.account(for: intent.toAccount),
      let from = accounts.account(for: intent.fromAccount)
    else { return result }
    if to.id == from.id {
      return .unsupported(ResolutionReason(message: "Pick an account other than \(from.nickname) to transfer to."))
    }
    if to.currency != from.currency {
      return .unsupported(
        ResolutionReason(
          message:
            "\(to.nickname) is in \(to.currency) and \(from.nickname) in \(from.currency): UnicornPay does not convert."
        ))
    }
    return result
  }

  func resolveAmount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<PaymentAmount> {
    guard intent.hasTransactionAmount, intent.transactionAmount.hasAmount,
      intent.transactionAmount.amount.units != 0 || intent.transactionAmount.amount.nanos != 0
    else { return .needsValue(prompt: "How much do you want to transfer?") }
    let accounts = try await store.read { try await AccountResolver.load(userID: context.userID, from: $0) }
    let currency = accounts.account(for: intent.fromAccount)?.currency ?? accounts.defaultCurrency
    switch TransferRules.amount(intent.transactionAmount.amount, currency: currency) {
    case .failure(.missingCurrency(let account)):
      return .needsValue(prompt: TransferRules.AmountProblem.missingCurrency(account: account).message)
    case .failure(let problem): return .unsupported(ResolutionReason(message: problem.message))
    case .success(let money):
      var amount = intent.transactionAmount
      amount.amount = money.currencyAmount
      return .success(amount)
    }
  }

  func resolveScheduledDate(intent: Intent, context: IntentContext) async throws -> ResolutionResult<
    DateComponentsRange
  > {
    ScheduledDate.resolve(
      intent.transactionScheduledDate, given: intent.hasTransactionScheduledDate, context: context)
  }

  struct Plan {
    var from: StoredAccount
    var to: StoredAccount
    var amount: Money
    var fee: Money
    var date: ScheduledDate.Check
  }

  func makePlan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    Plan, IntentRefusal<Response>
  > {
    let profile = ProfileCheck.check(try await StoredPaymentProfile.load(context.userID, in: database))
    if let refusal: Answer = profile.refusal(Self.codes) { return .failure(IntentRefusal(refusal)) }
    let accounts = try await AccountResolver.load(userID: context.userID, profile: profile.readyProfile, from: database)
    guard let from = accounts.account(for: intent.fromAccount) else {
      return .failure(IntentRefusal(.failure, "unresolvedFromAccount"))
    }
    guard let to = accounts.account(for: intent.toAccount), to.id != from.id, to.currency == from.currency else {
      return .failure(IntentRefusal(.failure, "unresolvedToAccount"))
    }
    guard case .success(let amount) = TransferRules.amount(intent.transactionAmount.amount, currency: from.currency)
    else { return .failure(IntentRefusal(.failure, "invalidAmount")) }
    let date = ScheduledDate.check(
      intent.hasTransactionScheduledDate ? intent.transactionScheduledDate : nil, context: context)
    guard date.isBookable else { return .failure(IntentRefusal(.failure, "invalidScheduledDate")) }
    let fee = TransferRules.fee(from: from, to: to)
    guard amount + fee <= from.available else { return .failure(IntentRefusal(.failureInsufficientFunds)) }
    return .success(Plan(from: from, to: to, amount: amount, fee: fee, date: date))
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    try await store.read { database in
      switch try await makePlan(intent: intent, context: context, database: database) {
      case .failure(let refusal): return refusal.answer
      case .success(let plan): return IntentAnswer(Self.response(.ready, plan: plan, intent: intent, context: context))
      }
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    var plan: Plan
    switch try await makePlan(intent: intent, context: context, database: database) {
    case .failure(let refusal): return refusal.answer
    case .success(let ready): plan = ready
    }
    let milliseconds = context.now.epochMilliseconds
    let movementID = identifiers.next()
    switch plan.date {
    case .later(let day):
      try await ScheduledHold.book(
        StoredScheduledPayment(
          id: identifiers.next(), userID: context.userID, kind: .transfer, fromAccount: plan.from.id,
          toAccount: plan.to.id, amount: plan.amount, dueDate: day, dueAt: ScheduledHold.dueAt(day, context: context),
          holdMovementID: movementID),
        fee: plan.fee, description: "transfer to \(plan.to.nickname) on \(day)", context: context, in: database)
    default:
      var legs = [Movement.Leg(plan.from.id, -(plan.amount + plan.fee)), Movement.Leg(plan.to.id, plan.amount)]
      if plan.fee.minorUnits > 0 {
        legs.append(
          Movement.Leg(try await Ledger.systemAccount(.fees, currency: plan.fee.currency, in: database), plan.fee))
      }
      try await Ledger.post(
        Movement(
          id: movementID, userID: context.userID, kind: .transfer, intentIdentifier: context.intentIdentifier,
          description: "transfer to \(plan.to.nickname)", legs: legs),
        at: milliseconds, in: database)
    }
    // Answer with the balances after the movement.
    plan.from = try await AccountRepository.account(plan.from.id, in: database) ?? plan.from
    plan.to = try await AccountRepository.account(plan.to.id, in: database) ?? plan.to
    context.logger.info("transferred money", metadata: ["amount": "\(plan.amount)", "fee": "\(plan.fee)"])
    return IntentAnswer(Self.response(.success, plan: plan, intent: intent, context: context))
  }

  static func response(_ code: Response.Code, plan: Plan, intent: Intent, context: IntentContext) -> Response {
    var response = Response(code: code)
    response.fromAccount = plan.from.paymentAccount
    response.toAccount = plan.to.paymentAccount
    response.transactionAmount = .with {
      $0.amountType = intent.transactionAmount.amountType
      $0.amount = plan.amount.currencyAmount
    }
    let day: CalendarDay =
      if case .later(let later) = plan.date { later } else { CalendarDay(context.now, timeZone: context.timeZone) }
    response.transactionScheduledDate = .with { $0.startDateComponents = day.components }
    response.transactionNote = intent.transactionNote
    response.transferFee = plan.fee.currencyAmount
    return response
  }
}
