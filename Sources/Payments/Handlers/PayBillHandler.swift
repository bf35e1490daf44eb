internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INPayBillIntent: one unpaid bill (by payee and type), the account to pay from (the default
/// account when none is named), the amount (given, or the minimum or full amount due), an optional
/// date and note. Handle debits the account and marks the bill paid, or holds the money until the
/// date. A bill that is another user's payment request is paid in full, today, into the account
/// the requester asked it into, and the requester sees it paid.
struct PayBillHandler: IntentHandler {
  typealias Intent = PayBillIntent
  typealias Response = PayBillIntentResponse

  static let intentClass = "INPayBillIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Ready to pay it?"
  static var parameters: [IntentParameter<Self>] {
    [
      .value(
        "billPayee", \.billPayee, prompt: "Which bill do you want to pay?", label: "Bill", resolve: Self.resolveBill),
      .value("fromAccount", \.fromAccount, label: "From", resolve: Self.resolveFromAccount),
      .value(
        "transactionAmount", \.transactionAmount, prompt: "How much do you want to pay?", label: "Amount",
        resolve: Self.resolveAmount),
      .value(
        "transactionScheduledDate", \.transactionScheduledDate, label: "Date", resolve: Self.resolveScheduledDate),
      .value("transactionNote", \.transactionNote, label: "Note"),
      .value("billType", \.billType, label: "Type"),
      .value("dueDate", \.dueDate, label: "Due"),
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

  func resolveBill(intent: Intent, context: IntentContext) async throws -> ResolutionResult<BillPayee> {
    let bills = try await store.read { try await BillResolver.load(userID: context.userID, from: $0) }
    return bills.resolveBillToPay(intent.billPayee, type: intent.billType)
  }

  func resolveFromAccount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<PaymentAccount> {
    let (accounts, bills) = try await store.read { database in
      (
        try await AccountResolver.load(userID: context.userID, from: database),
        try await BillResolver.load(userID: context.userID, from: database)
      )
    }
    guard AccountResolver.isEmpty(intent.fromAccount) else {
      return accounts.resolve(intent.fromAccount, prompt: "Which account do you want to pay from?")
    }
    let currency =
      bills.billToPay(intent.billPayee, type: intent.billType)?.amountDue.currency ?? accounts.defaultCurrency
    guard let account = accounts.defaultAccount(currency: currency) else {
      return .needsValue(prompt: "Which account do you want to pay from?")
    }
    return .success(account.paymentAccount)
  }

  func resolveAmount(intent: Intent, context: IntentContext) async throws -> ResolutionResult<PaymentAmount> {
    let (bills, scheduled) = try await store.read { database in
      (
        try await BillResolver.load(userID: context.userID, from: database),
        try await ScheduledPaymentRepository.payments(of: context.userID, in: database)
      )
    }
    let bill = bills.billToPay(intent.billPayee, type: intent.billType).map {
      Self.outstanding($0, scheduled: scheduled)
    }
    switch Self.amount(intent.transactionAmount, bill: bill) {
    case .success(let money):
      return .success(
        .with {
          $0.amountType = intent.transactionAmount.amountType
          $0.amount = money.currencyAmount
        })
    case .failure(.missing):
      let due = bill.map { " You owe \($0.amountDue), at least \($0.minimumDue)." } ?? ""
      return .needsValue(prompt: "How much do you want to pay?\(due)")
    case .failure(.invalid(let message)):
      return .unsupported(ResolutionReason(message: message))
    }
  }

  func resolveScheduledDate(intent: Intent, context: IntentContext) async throws -> ResolutionResult<
    DateComponentsRange
  > {
    if case .later = ScheduledDate.check(
      intent.hasTransactionScheduledDate ? intent.transactionScheduledDate : nil, context: context),
      try await store.read({ try await BillResolver.load(userID: context.userID, from: $0) })
        .billToPay(intent.billPayee, type: intent.billType)?.isRequest == true
    {
      return .unsupported(ResolutionReason(message: "A payment request is paid today."))
    }
    return ScheduledDate.resolve(
      intent.transactionScheduledDate, given: intent.hasTransactionScheduledDate, context: context)
  }

  /// The bill with its scheduled payments counted: what they will pay on their day is no longer
  /// due now, so the same bill cannot be paid twice over.
  static func outstanding(_ bill: StoredBill, scheduled: [StoredScheduledPayment]) -> StoredBill {
    let pending = scheduled.filter { $0.kind == .bill && $0.billID == bill.id && $0.status == .pending }
      .reduce(Int64(0)) { $0 + $1.amount.minorUnits }
    guard pending > 0 else { return bill }
    var bill = bill
    bill.amountDue = Money(max(0, bill.amountDue.minorUnits - pending), bill.amountDue.currency)
    bill.minimumDue = Money(max(0, bill.minimumDue.minorUnits - pending), bill.minimumDue.currency)
    return bill
  }

  enum AmountProblem: Error, Equatable {
    case missing
    case invalid(String)
  }

  /// The money a transaction amount names for `bill`: the amount given, or the minimum or full
  /// amount due that its type asks for; never more than is due.
  static func amount(_ given: PaymentAmount, bill: StoredBill?) -> Result<Money, AmountProblem> {
    let hasAmount = given.hasAmount && (given.amount.units != 0 || given.amount.nanos != 0)
    guard let bill else {
      return hasAmount || given.amountType != .unspecified
        ? .failure(.invalid("Pick the bill first.")) : .failure(.missing)
    }
    let money: Money
    if hasAmount {
      switch TransferRules.amount(given.amount, currency: bill.amountDue.currency) {
      case .success(let exact): money = exact
      case .failure(let problem): return .failure(.invalid(problem.message))
      }
    } else {
      switch given.amountType {
      case .minimumDue: money = bill.minimumDue.minorUnits > 0 ? bill.minimumDue : bill.amountDue
      case .amountDue, .statementBalance, .currentBalance: money = bill.amountDue
      case .unspecified: return .failure(.missing)
      default: return .failure(.invalid("A bill is paid by its minimum or full amount due, or an amount you name."))
      }
    }
    guard money <= bill.amountDue else {
      return .failure(.invalid("You owe \(bill.payeeNickname) only \(bill.amountDue)."))
    }
    guard !bill.isRequest || money == bill.amountDue else {
      return .failure(.invalid("\(bill.payeeNickname) asked for \(bill.amountDue): a request is paid in full."))
    }
    guard money.minorUnits > 0 else { return .failure(.invalid("Nothing is due on that bill.")) }
    return .success(money)
  }

  struct Plan {
    var bill: StoredBill
    var from: StoredAccount
    var amount: Money
    var date: ScheduledDate.Check
    var payer: StoredPaymentProfile
  }

  func makePlan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    Plan, IntentRefusal<Response>
  > {
    let profile = ProfileCheck.check(try await StoredPaymentProfile.load(context.userID, in: database))
    if let refusal: Answer = profile.refusal(Self.codes) { return .failure(IntentRefusal(refusal)) }
    let bills = try await BillResolver.load(userID: context.userID, from: database)
    guard let found = bills.billToPay(intent.billPayee, type: intent.billType) else {
      return .failure(IntentRefusal(.failure, "unresolvedBill"))
    }
    let bill = Self.outstanding(
      found, scheduled: try await ScheduledPaymentRepository.payments(of: context.userID, in: database))
    let accounts = try await AccountResolver.load(userID: context.userID, profile: profile.readyProfile, from: database)
    let from =
      AccountResolver.isEmpty(intent.fromAccount)
      ? accounts.defaultAccount(currency: bill.amountDue.currency) : accounts.account(for: intent.fromAccount)
    guard let from, from.currency == bill.amountDue.currency else {
      return .failure(IntentRefusal(.failure, "unresolvedFromAccount"))
    }
    guard case .success(let amount) = Self.amount(intent.transactionAmount, bill: bill) else {
      return .failure(IntentRefusal(.failure, "invalidAmount"))
    }
    let date = ScheduledDate.check(
      intent.hasTransactionScheduledDate ? intent.transactionScheduledDate : nil, context: context)
    guard date.isBookable, !(bill.isRequest && date != .now) else {
      return .failure(IntentRefusal(.failure, "invalidScheduledDate"))
    }
    guard amount <= from.available else { return .failure(IntentRefusal(.failureInsufficientFunds)) }
    guard let payer = profile.readyProfile else { return .failure(IntentRefusal(.failureRequiringAppLaunch)) }
    return .success(Plan(bill: bill, from: from, amount: amount, date: date, payer: payer))
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
          id: identifiers.next(), userID: context.userID, kind: .bill, fromAccount: plan.from.id,
          billID: plan.bill.id, amount: plan.amount, dueDate: day, dueAt: ScheduledHold.dueAt(day, context: context),
          holdMovementID: movementID),
        description: "\(plan.bill.payeeNickname) bill on \(day)", context: context, in: database)
    case .now where plan.bill.isRequest:
      try await PaymentRequests.pay(
        plan.bill, by: plan.payer, from: plan.from, identifiers: identifiers,
        intentIdentifier: context.intentIdentifier, now: context.now, timeZone: context.timeZone, in: database)
    default:
      let billers = try await Ledger.systemAccount(.bills, currency: plan.amount.currency, in: database)
      try await Ledger.post(
        .between(
          id: movementID, userID: context.userID, kind: .bill, intentIdentifier: context.intentIdentifier,
          description: "\(plan.bill.payeeNickname) bill", from: plan.from.id, to: billers, amount: plan.amount),
        at: milliseconds, in: database)
      try await BillRepository.applyPayment(
        plan.amount, toBill: plan.bill.id, on: CalendarDay(context.now, timeZone: context.timeZone), in: database)
    }
    let bills = try await BillRepository.bills(of: context.userID, in: database)
    plan.bill = bills.first { $0.id == plan.bill.id } ?? plan.bill
    plan.from = try await AccountRepository.account(plan.from.id, in: database) ?? plan.from
    context.logger.info("paid bill", metadata: ["amount": "\(plan.amount)", "bill": "\(plan.bill.id)"])
    return IntentAnswer(Self.response(.success, plan: plan, intent: intent, context: context))
  }

  static func response(_ code: Response.Code, plan: Plan, intent: Intent, context: IntentContext) -> Response {
    var response = Response(code: code)
    response.billDetails = plan.bill.details
    response.fromAccount = plan.from.paymentAccount
    response.transactionAmount = .with {
      $0.amountType = intent.transactionAmount.amountType
      $0.amount = plan.amount.currencyAmount
    }
    let day: CalendarDay =
      if case .later(let later) = plan.date { later } else { CalendarDay(context.now, timeZone: context.timeZone) }
    response.transactionScheduledDate = .with { $0.startDateComponents = day.components }
    response.transactionNote = intent.transactionNote
    return response
  }
}
