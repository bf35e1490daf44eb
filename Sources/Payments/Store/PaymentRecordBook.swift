internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
package import SQLKit

/// A payment sent to or asked of a person.
package struct StoredPaymentRecord: Sendable, Equatable {
  package enum Direction: String, Sendable { case send, request }

  package var id: String
  package var userID: String
  package var direction: Direction
  package var counterpartyID: String
  /// The account paid from (send) or paid into once the request is paid (request).
  package var accountID: String
  package var amount: Money
  package var fee: Money
  package var note: String
  package var status: PaymentStatus
  /// The ledger movement of a sent payment; empty for a request.
  package var movementID: String
  package var createdAt: Int64

  package init(
    id: String, userID: String, direction: Direction, counterpartyID: String, accountID: String, amount: Money,
    fee: Money, note: String, status: PaymentStatus, movementID: String, createdAt: Int64
  ) {
    self.id = id
    self.userID = userID
    self.direction = direction
    self.counterpartyID = counterpartyID
    self.accountID = accountID
    self.amount = amount
    self.fee = fee
    self.note = note
    self.status = status
    self.movementID = movementID
    self.createdAt = createdAt
  }
}

/// Reads and writes payment records.
package enum PaymentRecordBook {
  package static func insert(_ record: StoredPaymentRecord, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO payments_records (record_id, user_id, direction, counterparty_id, account_id, amount_minor, currency,
                                    fee_minor, note, status, movement_id, created_at)
      VALUES (\(bind: record.id), \(bind: record.userID), \(bind: record.direction.rawValue),
              \(bind: record.counterpartyID), \(bind: record.accountID), \(bind: record.amount.minorUnits),
              \(bind: record.amount.currency), \(bind: record.fee.minorUnits), \(bind: record.note),
              \(bind: record.status.rawValue), \(bind: record.movementID), \(bind: record.createdAt))
      """
    ).run()
  }

  package static func records(of userID: String, in database: any SQLDatabase) async throws -> [StoredPaymentRecord] {
    try await database.raw(
      """
      SELECT record_id, direction, counterparty_id, account_id, amount_minor, currency, fee_minor, note, status,
             movement_id, created_at
      FROM payments_records WHERE user_id = \(bind: userID) ORDER BY created_at, record_id
      """
    ).all().map { row in
      let currency = try row.decode(column: "currency", as: String.self)
      return StoredPaymentRecord(
        id: try row.decode(column: "record_id", as: String.self), userID: userID,
        direction: StoredPaymentRecord.Direction(rawValue: try row.decode(column: "direction", as: String.self))
          ?? .send,
        counterpartyID: try row.decode(column: "counterparty_id", as: String.self),
        accountID: try row.decode(column: "account_id", as: String.self),
        amount: Money(try row.decode(column: "amount_minor", as: Int64.self), currency),
        fee: Money(try row.decode(column: "fee_minor", as: Int64.self), currency),
        note: try row.decode(column: "note", as: String.self),
        status: PaymentStatus(rawValue: try row.decode(column: "status", as: Int.self)) ?? .unspecified,
        movementID: try row.decode(column: "movement_id", as: String.self),
        createdAt: try row.decode(column: "created_at", as: Int64.self))
    }
  }
}
