internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import IntentsKit
internal import SQLKit

/// A payment as one user sees it: sent to, received from, or asked of another user. A payment
/// between two users is two records, one each, linked to each other.
struct StoredPaymentRecord: Sendable, Equatable {
  enum Direction: String, Sendable { case send, receive, request }

  var id: String
  var userID: String
  var direction: Direction
  /// The other person in the user's payees; empty when they are not among them (a payment
  /// received from, or a request paid to, someone the user never added).
  var counterpartyID: String
  /// The other person as a UnicornPay user.
  var counterpartyUserID: String
  var counterpartyName: String
  var counterpartyHandle: String
  /// The account paid from (send), paid into (receive), or to be paid into (request).
  var accountID: String
  var amount: Money
  var fee: Money
  var note: String
  var status: PaymentStatus
  /// The ledger movement that moved the money; empty for a request not yet paid.
  var movementID: String
  /// The other user's record of the same payment or request.
  var linkedRecordID: String
  var createdAt: Int64

  init(
    id: String, userID: String, direction: Direction, counterpartyID: String = "", counterpartyUserID: String = "",
    counterpartyName: String = "", counterpartyHandle: String = "", accountID: String, amount: Money, fee: Money,
    note: String, status: PaymentStatus, movementID: String, linkedRecordID: String = "", createdAt: Int64
  ) {
    self.id = id
    self.userID = userID
    self.direction = direction
    self.counterpartyID = counterpartyID
    self.counterpartyUserID = counterpartyUserID
    self.counterpartyName = counterpartyName
    self.counterpartyHandle = counterpartyHandle
    self.accountID = accountID
    self.amount = amount
    self.fee = fee
    self.note = note
    self.status = status
    self.movementID = movementID
    self.linkedRecordID = linkedRecordID
    self.createdAt = createdAt
  }
}

/// Reads and writes payment records.
enum PaymentRecordRepository {
  static let columns: SQLQueryString = """
    record_id, user_id, direction, counterparty_id, counterparty_user, counterparty_name, counterparty_handle,
    account_id, amount_minor, currency, fee_minor, note, status, movement_id, linked_record, created_at
    """

  static func insert(_ record: StoredPaymentRecord, in database: any SQLDatabase) async throws {
    try await insert([record], in: database)
  }

  /// Inserts `records` in one statement.
  static func insert(_ records: [StoredPaymentRecord], in database: any SQLDatabase) async throws {
    guard !records.isEmpty else { return }
    var rows: [SQLQueryString] = []
    for record in records {
      rows.append(
        """
        (\(bind: record.id), \(bind: record.userID), \(bind: record.direction.rawValue),
         \(bind: record.counterpartyID), \(bind: record.counterpartyUserID), \(bind: record.counterpartyName),
         \(bind: record.counterpartyHandle), \(bind: record.accountID), \(bind: record.amount.minorUnits),
         \(bind: record.amount.currency), \(bind: record.fee.minorUnits), \(bind: record.note),
         \(bind: record.status.rawValue), \(bind: record.movementID), \(bind: record.linkedRecordID),
         \(bind: record.createdAt))
        """)
    }
    // Sent with the transaction's next statement that does not read records (PostgreSQL).
    try await database.writeLater("INSERT INTO payments_records (\(columns)) VALUES " + rows.joined(separator: ", "))
  }

  /// A user's records, oldest first.
  static func records(of userID: String, in database: any SQLDatabase) async throws -> [StoredPaymentRecord] {
    try await database.raw(
      "SELECT \(columns) FROM payments_records WHERE user_id = \(bind: userID) ORDER BY created_at, record_id"
    ).all().map(decode)
  }

  /// A user's latest `limit` records, newest first.
  static func latest(_ limit: Int, of userID: String, in database: any SQLDatabase) async throws
    -> [StoredPaymentRecord]
  {
    try await database.raw(
      """
      SELECT \(columns) FROM payments_records WHERE user_id = \(bind: userID)
      ORDER BY created_at DESC, record_id DESC LIMIT \(bind: limit)
      """
    ).all().map(decode)
  }

  /// How many of `requesterID`'s requests to `payerID` are still pending.
  static func pendingRequests(from requesterID: String, to payerID: String, in database: any SQLDatabase)
    async throws -> Int
  {
    try await database.raw(
      """
      SELECT COUNT(*) AS n FROM payments_records
      WHERE user_id = \(bind: requesterID) AND counterparty_user = \(bind: payerID) AND direction = 'request'
        AND status = \(bind: PaymentStatus.pending.rawValue)
      """
    ).first()?.decode(column: "n", as: Int.self) ?? 0
  }

  /// The requests other users sent `payerID`.
  static func requests(askedOf payerID: String, in database: any SQLDatabase) async throws
    -> [StoredPaymentRecord]
  {
    try await database.raw(
      """
      SELECT \(columns) FROM payments_records WHERE counterparty_user = \(bind: payerID) AND direction = 'request'
      """
    ).all().map(decode)
  }

  static func record(_ id: String, in database: any SQLDatabase) async throws -> StoredPaymentRecord? {
    try await database.raw("SELECT \(columns) FROM payments_records WHERE record_id = \(bind: id)").first().map(decode)
  }

  /// Settles a pending request: paid (completed, by `movementID`) or declined (canceled). False
  /// when it was no longer pending.
  static func settleRequest(
    _ id: String, status: PaymentStatus, movementID: String, in database: any SQLDatabase
  ) async throws -> Bool {
    !(try await database.raw(
      """
      UPDATE payments_records SET status = \(bind: status.rawValue), movement_id = \(bind: movementID)
      WHERE record_id = \(bind: id) AND direction = 'request' AND status = \(bind: PaymentStatus.pending.rawValue)
      RETURNING record_id
      """
    ).all()).isEmpty
  }

  static func decode(_ row: any SQLRow) throws -> StoredPaymentRecord {
    let currency = try row.decode(column: "currency", as: String.self)
    return StoredPaymentRecord(
      id: try row.decode(column: "record_id", as: String.self),
      userID: try row.decode(column: "user_id", as: String.self),
      direction: StoredPaymentRecord.Direction(rawValue: try row.decode(column: "direction", as: String.self))
        ?? .send,
      counterpartyID: try row.decode(column: "counterparty_id", as: String.self),
      counterpartyUserID: try row.decode(column: "counterparty_user", as: String.self),
      counterpartyName: try row.decode(column: "counterparty_name", as: String.self),
      counterpartyHandle: try row.decode(column: "counterparty_handle", as: String.self),
      accountID: try row.decode(column: "account_id", as: String.self),
      amount: Money(try row.decode(column: "amount_minor", as: Int64.self), currency),
      fee: Money(try row.decode(column: "fee_minor", as: Int64.self), currency),
      note: try row.decode(column: "note", as: String.self),
      status: PaymentStatus(rawValue: try row.decode(column: "status", as: Int.self)) ?? .unspecified,
      movementID: try row.decode(column: "movement_id", as: String.self),
      linkedRecordID: try row.decode(column: "linked_record", as: String.self),
      createdAt: try row.decode(column: "created_at", as: Int64.self))
  }
}
