internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import SQLKit

/// A bill a user owes a biller, or a payment request another user sent them (`requestID`).
struct StoredBill: Sendable, Equatable {
  var id: String
  var userID: String
  var payeeNickname: String
  var payeeOrganization: String
  var payeeAccountNumber: String
  var type: BillType
  var status: PaymentStatus
  var amountDue: Money
  var minimumDue: Money
  var lateFee: Money
  var dueDate: CalendarDay
  var paymentDate: CalendarDay?
  /// The requester's record when the bill is a payment request from another user; paying it pays
  /// that user. Empty for a biller's bill.
  var requestID: String

  /// Whether the bill is a request from another user.
  var isRequest: Bool { !requestID.isEmpty }

  /// Whether something is still to be paid: not paid in full, not declined.
  var isPayable: Bool { status != .completed && status != .canceled && amountDue.minorUnits > 0 }

  init(
    id: String, userID: String, payeeNickname: String, payeeOrganization: String, payeeAccountNumber: String,
    type: BillType, status: PaymentStatus, amountDue: Money, minimumDue: Money, lateFee: Money,
    dueDate: CalendarDay, paymentDate: CalendarDay? = nil, requestID: String = ""
  ) {
    self.id = id
    self.userID = userID
    self.payeeNickname = payeeNickname
    self.payeeOrganization = payeeOrganization
    self.payeeAccountNumber = payeeAccountNumber
    self.type = type
    self.status = status
    self.amountDue = amountDue
    self.minimumDue = minimumDue
    self.lateFee = lateFee
    self.dueDate = dueDate
    self.paymentDate = paymentDate
    self.requestID = requestID
  }

  var payee: BillPayee {
    .with {
      $0.nickname = .with {
        $0.spokenPhrase = payeeNickname
        $0.vocabularyIdentifier = id
      }
      $0.organizationName = .with { $0.spokenPhrase = payeeOrganization }
      $0.accountNumber = payeeAccountNumber
    }
  }

  /// The bill as SiriKit's `INBillDetails`.
  var details: BillDetails {
    .with {
      $0.billType = type
      $0.paymentStatus = status
      $0.billPayee = payee
      $0.amountDue = amountDue.currencyAmount
      $0.minimumDue = minimumDue.currencyAmount
      $0.lateFee = lateFee.currencyAmount
      $0.dueDate = dueDate.components
      if let paymentDate { $0.paymentDate = paymentDate.components }
    }
  }
}

/// Reads and writes bills.
enum BillRepository {
  static let select: SQLQueryString = """
    SELECT bill_id, user_id, payee_nickname, payee_organization, payee_account_number, bill_type, status, currency,
           amount_due_minor, minimum_due_minor, late_fee_minor, due_date, payment_date, request_id
    FROM payments_bills
    """

  static func bills(of userID: String, in database: any SQLDatabase) async throws -> [StoredBill] {
    try await database.raw("\(select) WHERE user_id = \(bind: userID) ORDER BY due_date, bill_id").all().map(decode)
  }

  /// The bill `id`, when it is `userID`'s.
  static func bill(_ id: String, of userID: String, in database: any SQLDatabase) async throws -> StoredBill? {
    try await database.raw("\(select) WHERE bill_id = \(bind: id) AND user_id = \(bind: userID)").first().map(decode)
  }

  static func decode(_ row: any SQLRow) throws -> StoredBill {
    let currency = try row.decode(column: "currency", as: String.self)
    let due = try row.decode(column: "due_date", as: String.self)
    return StoredBill(
      id: try row.decode(column: "bill_id", as: String.self),
      userID: try row.decode(column: "user_id", as: String.self),
      payeeNickname: try row.decode(column: "payee_nickname", as: String.self),
      payeeOrganization: try row.decode(column: "payee_organization", as: String.self),
      payeeAccountNumber: try row.decode(column: "payee_account_number", as: String.self),
      type: BillType(rawValue: try row.decode(column: "bill_type", as: Int.self)) ?? .unspecified,
      status: PaymentStatus(rawValue: try row.decode(column: "status", as: Int.self)) ?? .unspecified,
      amountDue: Money(try row.decode(column: "amount_due_minor", as: Int64.self), currency),
      minimumDue: Money(try row.decode(column: "minimum_due_minor", as: Int64.self), currency),
      lateFee: Money(try row.decode(column: "late_fee_minor", as: Int64.self), currency),
      dueDate: CalendarDay(due) ?? CalendarDay(year: 1970, month: 1, day: 1),
      paymentDate: CalendarDay(try row.decode(column: "payment_date", as: String.self)),
      requestID: try row.decode(column: "request_id", as: String.self))
  }

  static func insert(_ bill: StoredBill, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO payments_bills (bill_id, user_id, payee_nickname, payee_organization, payee_account_number, bill_type,
                                  status, currency, amount_due_minor, minimum_due_minor, late_fee_minor, due_date,
                                  payment_date, request_id)
      VALUES (\(bind: bill.id), \(bind: bill.userID), \(bind: bill.payeeNickname), \(bind: bill.payeeOrganization),
              \(bind: bill.payeeAccountNumber), \(bind: bill.type.rawValue), \(bind: bill.status.rawValue),
              \(bind: bill.amountDue.currency), \(bind: bill.amountDue.minorUnits), \(bind: bill.minimumDue.minorUnits),
              \(bind: bill.lateFee.minorUnits), \(bind: bill.dueDate.description),
              \(bind: bill.paymentDate?.description ?? ""), \(bind: bill.requestID))
      """
    ).run()
  }

  /// Records `paid` against the bill: the amount due goes down (never below zero), the minimum due
  /// with it, and a bill paid in full is completed on `day`.
  static func applyPayment(_ paid: Money, toBill id: String, on day: CalendarDay, in database: any SQLDatabase)
    async throws
  {
    try await database.raw(
      """
      UPDATE payments_bills SET
        amount_due_minor = CASE WHEN amount_due_minor > \(bind: paid.minorUnits)
                                THEN amount_due_minor - \(bind: paid.minorUnits) ELSE 0 END,
        minimum_due_minor = CASE WHEN minimum_due_minor > \(bind: paid.minorUnits)
                                 THEN minimum_due_minor - \(bind: paid.minorUnits) ELSE 0 END,
        status = CASE WHEN amount_due_minor <= \(bind: paid.minorUnits) THEN \(bind: PaymentStatus.completed.rawValue)
                      ELSE status END,
        payment_date = \(bind: day.description)
      WHERE bill_id = \(bind: id)
      """
    ).run()
  }

  /// Marks the request bill `id` declined (canceled). False when it was no longer unpaid.
  static func decline(_ id: String, in database: any SQLDatabase) async throws -> Bool {
    !(try await database.raw(
      """
      UPDATE payments_bills SET status = \(bind: PaymentStatus.canceled.rawValue)
      WHERE bill_id = \(bind: id) AND request_id <> '' AND status = \(bind: PaymentStatus.unpaid.rawValue)
      RETURNING bill_id
      """
    ).all()).isEmpty
  }
}
