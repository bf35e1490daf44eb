internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INSearchForBillsIntent: the user's bills by payee, type, status, payment date and due date.
struct SearchForBillsHandler: IntentHandler {
  typealias Intent = SearchForBillsIntent
  typealias Response = SearchForBillsIntentResponse

  static let intentClass = "INSearchForBillsIntent"
  static let handleHasEffects = false
  /// Every payments intent waits for the user's yes, a bill lookup included.
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Do you want to see your bills?"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("billPayee", \.billPayee, label: "Payee", resolve: Self.resolvePayee),
      .value("paymentDateRange", \.paymentDateRange, label: "Paid"),
      .value("billType", \.billType, label: "Type"),
      .value("status", \.status, label: "Status"),
      .value("dueDateRange", \.dueDateRange, label: "Due"),
    ]
  }

  static let codes = ProfileCheck.Outcome.Codes<Response.Code>(
    appLaunch: .failureRequiringAppLaunch, credentialsUnverified: .failureCredentialsUnverified,
    termsAcceptanceRequired: nil, notEligible: nil)

  let store: any IntentStore

  init(store: any IntentStore) { self.store = store }

  func resolvePayee(intent: Intent, context: IntentContext) async throws -> ResolutionResult<BillPayee> {
    guard intent.hasBillPayee else { return .notRequired }
    let bills = try await store.read { try await BillResolver.load(userID: context.userID, from: $0) }
    return bills.resolveSearchPayee(intent.billPayee)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let profile = ProfileCheck.check(try await StoredPaymentProfile.load(context.userID, in: database))
    if let refusal: Answer = profile.refusal(Self.codes) { return refusal }
    let resolver = try await BillResolver.load(userID: context.userID, from: database)
    var found = resolver.bills(payee: intent.hasBillPayee ? intent.billPayee : BillPayee(), type: intent.billType)
    if intent.status != .unspecified { found = found.filter { $0.status == intent.status } }
    if intent.hasDueDateRange {
      let range = DayRange(intent.dueDateRange, context: context)
      found = found.filter { range.contains($0.dueDate) }
    }
    if intent.hasPaymentDateRange {
      let range = DayRange(intent.paymentDateRange, context: context)
      found = found.filter { bill in bill.paymentDate.map(range.contains) ?? false }
    }
    guard !found.isEmpty else { return IntentAnswer(code: .failureBillNotFound) }
    var response = Response(code: .success)
    response.bills = found.map(\.details)
    return IntentAnswer(response)
  }
}
