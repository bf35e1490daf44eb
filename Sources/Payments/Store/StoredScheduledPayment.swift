internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import SQLKit

/// A transfer or bill payment for a later day. Handle moves the money from the user's account into
/// UnicornPay's scheduled-hold account at once (so it cannot be spent twice); `ScheduledPayments`
/// settles it on its day.
struct StoredScheduledPayment: Sendable, Equatable {
  enum Kind: String, Sendable { case transfer, bill }

  var id: String
  var userID: String
  var kind: Kind
  var fromAccount: String
  /// The destination account of a transfer; empty for a bill.
  var toAccount: String
  /// The bill a bill payment pays; empty for a transfer.
  var billID: String
  var amount: Money
  var dueDate: CalendarDay
  /// The instant settlement may run: the start of `dueDate` in the user's time zone.
  var dueAt: Int64
  var status: PaymentStatus
  var holdMovementID: String
  var settleMovementID: String

  init(
    id: String, userID: String, kind: Kind, fromAccount: String, toAccount: String = "", billID: String = "",
    amount: Money, dueDate: CalendarDay, dueAt: Int64, status: PaymentStatus = .pending, holdMovementID: String,
    settleMovementID: String = ""
  ) {
    self.id = id
    self.userID = userID
    self.kind = kind
    self.fromAccount = fromAccount
    self.toAccount = toAccount
    self.billID = billID
    self.amount = amount
    self.dueDate = dueDate
    self.dueAt = dueAt
    self.status = status
    self.holdMovementID = holdMovementID
    self.settleMovementID = settleMovementID
  }
}

/// Reads and writes scheduled payments.
enum ScheduledPaymentRepository {
  static func insert(_ payment: StoredScheduledPayment, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO payments_scheduled (scheduled_id, user_id, kind, from_account, to_account, bill_id, amount_minor,
                                      currency, due_date, due_at, status, hold_movement_id, settle_movement_id)
      VALUES (\(bind: payment.id), \(bind: payment.userID), \(bind: payment.kind.rawValue),
              \(bind: payment.fromAccount), \(bind: payment.toAccount), \(bind: payment.billID),
              \(bind: payment.amount.minorUnits), \(bind: payment.amount.currency), \(bind: payment.dueDate.description),
              \(bind: payment.dueAt), \(bind: payment.status.rawValue), \(bind: payment.holdMovementID),
              \(bind: payment.settleMovementID))
      """
    ).run()
  }

  /// Pending payments whose moment has come, oldest first.
  static func due(at millisecondsSince1970: Int64, limit: Int = 100, in database: any SQLDatabase) async throws
    -> [StoredScheduledPayment]
  {
    try await select(
      "WHERE status = \(bind: PaymentStatus.pending.rawValue) AND due_at <= \(bind: millisecondsSince1970) ORDER BY due_at, scheduled_id LIMIT \(bind: limit)",
      in: database)
  }

  static func payments(of userID: String, in database: any SQLDatabase) async throws -> [StoredScheduledPayment] {
    try await select("WHERE user_id = \(bind: userID) ORDER BY due_at, scheduled_id", in: database)
  }

  /// Marks a pending payment settled by `movementID`; false when it was no longer pending (another
  /// round or replica settled it first).
  static func markSettled(_ id: String, movementID: String, in database: any SQLDatabase) async throws -> Bool {
    !(try await database.raw(
      """
      UPDATE payments_scheduled SET status = \(bind: PaymentStatus.completed.rawValue),
             settle_movement_id = \(bind: movementID)
      WHERE scheduled_id = \(bind: id) AND status = \(bind: PaymentStatus.pending.rawValue)
      RETURNING scheduled_id
      """
    ).all().isEmpty)
  }

  private static func select(_ filter: SQLQueryString, in database: any SQLDatabase) async throws
    -> [StoredScheduledPayment]
  {
    try await database.raw(
      """
      SELECT scheduled_id, user_id, kind, from_account, to_account, bill_id, amount_minor, currency, due_date, due_at,
             status, hold_movement_id, settle_movement_id
      FROM payments_scheduled \(filter)
      """
    ).all().map { row in
      StoredScheduledPayment(
        id: try row.decode(column: "scheduled_id", as: String.self),
        userID: try row.decode(column: "user_id", as: String.self),
        kind: StoredScheduledPayment.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .transfer,
        fromAccount: try row.decode(column: "from_account", as: String.self),
        toAccount: try row.decode(column: "to_account", as: String.self),
        billID: try row.decode(column: "bill_id", as: String.self),
        amount: Money(
          try row.decode(column: "amount_minor", as: Int64.self), try row.decode(column: "currency", as: String.self)),
        dueDate: CalendarDay(try row.decode(column: "due_date", as: String.self))
          ?? CalendarDay(year: 1970, month: 1, day: 1),
        dueAt: try row.decode(column: "due_at", as: Int64.self),
        status: PaymentStatus(rawValue: try row.decode(column: "status", as: Int.self)) ?? .unspecified,
        holdMovementID: try row.decode(column: "hold_movement_id", as: String.self),
        settleMovementID: try row.decode(column: "settle_movement_id", as: String.self))
    }
  }
}
