internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import SQLKit

/// Checks the ledger's invariants over the whole store: every movement sums to zero per currency,
/// every account's balance equals the sum of its legs, no user account is below its limit, and the
/// system as a whole holds zero. Sums are cast to BIGINT: PostgreSQL sums BIGINTs as NUMERIC. An empty list means the books balance.
enum LedgerAudit {
  static func problems(in database: any SQLDatabase) async throws -> [String] {
    var problems: [String] = []
    for row in try await database.raw(
      """
      SELECT movement_id, currency, CAST(SUM(amount_minor) AS BIGINT) AS total FROM payments_legs
      GROUP BY movement_id, currency HAVING SUM(amount_minor) <> 0
      """
    ).all() {
      problems.append(
        "movement \(try row.decode(column: "movement_id", as: String.self)) sums to \(try row.decode(column: "total", as: Int64.self)) \(try row.decode(column: "currency", as: String.self))"
      )
    }
    for row in try await database.raw(
      """
      SELECT a.account_id, a.balance_minor, CAST(COALESCE(SUM(l.amount_minor), 0) AS BIGINT) AS legs
      FROM payments_accounts a LEFT JOIN payments_legs l ON l.account_id = a.account_id
      GROUP BY a.account_id, a.balance_minor
      HAVING a.balance_minor <> COALESCE(SUM(l.amount_minor), 0)
      """
    ).all() {
      problems.append(
        "account \(try row.decode(column: "account_id", as: String.self)) has balance \(try row.decode(column: "balance_minor", as: Int64.self)) but legs sum to \(try row.decode(column: "legs", as: Int64.self))"
      )
    }
    for row in try await database.raw(
      """
      SELECT account_id FROM payments_accounts WHERE kind = 'user' AND balance_minor + overdraft_limit_minor < 0
      """
    ).all() {
      problems.append("account \(try row.decode(column: "account_id", as: String.self)) is below its limit")
    }
    for row in try await database.raw(
      """
      SELECT m.movement_id FROM payments_movements m
      WHERE (SELECT COUNT(*) FROM payments_legs l WHERE l.movement_id = m.movement_id) < 2
      """
    ).all() {
      problems.append("movement \(try row.decode(column: "movement_id", as: String.self)) has fewer than two legs")
    }
    return problems
  }
}
