internal import Foundation
internal import IntentsKit
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import PaymentsProtos
internal import SQLKit
internal import IntentMeshCore

/// The double-entry ledger: posts movements inside the caller's transaction. A leg that would take
/// a user account below its overdraft or credit limit fails the whole movement (and, by throwing,
/// the transaction), whatever the caller checked before; so does a leg that takes money from a
/// user account of anyone but the movement's user (owners compared byte for byte, by the store).
enum Ledger {
  enum Failure: Error, Equatable, CustomStringConvertible {
    case unbalanced(movementID: String)
    case emptyMovement(movementID: String)
    case wouldOverdraw(accountID: String)
    case unknownAccount(accountID: String, currency: String)
    case notOwned(accountID: String, userID: String)

    var description: String {
      switch self {
      case .unbalanced(let id): "movement \(id) does not sum to zero"
      case .emptyMovement(let id): "movement \(id) has fewer than two legs"
      case .wouldOverdraw(let id): "account \(id) would go below its limit"
      case .unknownAccount(let id, let currency): "no account \(id) in \(currency)"
      case .notOwned(let id, let user): "account \(id) is not \(user)'s to take money from"
      }
    }
  }

  /// Records `movement` and applies its legs to the balances; call inside a write transaction.
  /// The movement and its legs first (two statements, whatever the number of legs), then the
  /// balances — last, so that their rows (one user's account, taken by each of their concurrent
  /// payments) are locked only from there to the commit — one account after the other in the
  /// order of their identifiers: two movements that touch the same accounts lock them in the same
  /// order, and never wait for each other in a circle (a payment from A to B beside one from B to
  /// A; or one UPDATE of both, whose join may take its rows in either order).
  static func post(_ movement: Movement, at millisecondsSince1970: Int64, in database: any SQLDatabase)
    async throws
  {
    guard movement.legs.count >= 2 else { throw Failure.emptyMovement(movementID: movement.id) }
    guard movement.isBalanced else { throw Failure.unbalanced(movementID: movement.id) }
    // The movement and its legs go with the balances' UPDATE on PostgreSQL (one round trip): no
    // statement before it reads them.
    try await database.writeLater(
      """
      INSERT INTO payments_movements (movement_id, user_id, kind, intent_identifier, description, created_at)
      VALUES (\(bind: movement.id), \(bind: movement.userID), \(bind: movement.kind.rawValue),
              \(bind: movement.intentIdentifier), \(bind: movement.description), \(bind: millisecondsSince1970))
      """
    )
    var legs: [SQLQueryString] = []
    for (position, leg) in movement.legs.enumerated() {
      legs.append(
        """
        (\(bind: movement.id), \(bind: position), \(bind: leg.accountID), \(bind: leg.amount.minorUnits), \(bind: leg.amount.currency))
        """)
    }
    try await database.writeLater(
      "INSERT INTO payments_legs (movement_id, position, account_id, amount_minor, currency) VALUES "
        + legs.joined(separator: ", "))
    try await apply(balanceChanges(of: movement), of: movement, in: database)
  }

  /// One change of a balance: an account (in a currency) and what the movement adds to it.
  struct BalanceChange: Equatable {
    var accountID: String
    var currency: String
    var minorUnits: Int64
  }

  /// The movement's changes, one per account and currency (an account on two legs moves by their
  /// sum), in the order their rows are locked: by account identifier, then currency, bytewise.
  static func balanceChanges(of movement: Movement) -> [BalanceChange] {
    var changes: [BalanceChange] = []
    for leg in movement.legs {
      if let index = changes.firstIndex(where: { $0.accountID == leg.accountID && $0.currency == leg.amount.currency })
      {
        changes[index].minorUnits += leg.amount.minorUnits
      } else {
        changes.append(
          BalanceChange(accountID: leg.accountID, currency: leg.amount.currency, minorUnits: leg.amount.minorUnits))
      }
    }
    return changes.sorted {
      $0.accountID.utf8.lexicographicallyPrecedes($1.accountID.utf8)
        || ($0.accountID.utf8.elementsEqual($1.accountID.utf8)
          && $0.currency.utf8.lexicographicallyPrecedes($1.currency.utf8))
    }
  }

  /// Adds each change to its account's balance, in one statement. A change that would take a user
  /// account below its limit, or money from an account of anyone but the movement's user, changes
  /// nothing and fails the movement: the check is the UPDATE's own, on the row as it is once the
  /// UPDATE holds it — true whatever a concurrent write did since the caller read the balance. On
  /// PostgreSQL the statement first locks the rows in `changes`' order (a join may take them in
  /// either); SQLite has one writer, and no order to keep.
  private static func apply(_ changes: [BalanceChange], of movement: Movement, in database: any SQLDatabase)
    async throws
  {
    var rows: [SQLQueryString] = []
    var accounts: [SQLQueryString] = []
    for change in changes {
      rows.append("(\(bind: change.accountID), \(bind: change.currency), \(bind: change.minorUnits))")
      accounts.append("\(bind: change.accountID)")
    }
    let postgres = database.dialect.name == "postgresql"
    let lockInOrder: SQLQueryString =
      postgres
      ? """
      WITH locked AS MATERIALIZED (
        SELECT account_id FROM payments_accounts WHERE account_id IN (\(accounts.joined(separator: ", ")))
        ORDER BY account_id COLLATE "C" FOR NO KEY UPDATE)

      """ : ""
    let locked: SQLQueryString = postgres ? "JOIN locked ON locked.account_id = change.column1" : ""
    // VALUES' columns are column1… on both PostgreSQL and SQLite.
    let updated = try await database.changedRows(
      by: lockInOrder
        + """
        UPDATE payments_accounts SET balance_minor = payments_accounts.balance_minor + change.column3
        FROM (VALUES \(rows.joined(separator: ", "))) AS change \(locked)
        WHERE payments_accounts.account_id = change.column1 AND payments_accounts.currency = change.column2
          AND (payments_accounts.kind = 'system'
            OR (payments_accounts.balance_minor + change.column3 + payments_accounts.overdraft_limit_minor >= 0
              AND (change.column3 >= 0 OR payments_accounts.owner_id = \(bind: movement.userID))))
        """)
    guard updated < changes.count else { return }
    // Which change was refused, and why (the throw rolls the caller's transaction back). An account
    // that is not there names itself first: a debit the UPDATE did apply reads lower now.
    for change in changes {
      let found = try await database.raw(
        "SELECT 1 AS found FROM payments_accounts WHERE account_id = \(bind: change.accountID) AND currency = \(bind: change.currency)"
      ).first()
      if found == nil { throw Failure.unknownAccount(accountID: change.accountID, currency: change.currency) }
    }
    for change in changes where change.minorUnits < 0 {
      let found = try await database.raw(
        """
        SELECT owner_id, kind FROM payments_accounts
        WHERE account_id = \(bind: change.accountID) AND currency = \(bind: change.currency)
        """
      ).first()
      guard let found, try found.decode(column: "kind", as: String.self) != "system" else { continue }
      if !UserIdentity.same(try found.decode(column: "owner_id", as: String.self), movement.userID) {
        throw Failure.notOwned(accountID: change.accountID, userID: movement.userID)
      }
    }
    // Every account is there and its owner's: a debit went past the account's limit.
    throw Failure.wouldOverdraw(accountID: changes.first { $0.minorUnits < 0 }?.accountID ?? "")
  }

  /// UnicornPay's own account for `purpose` in `currency`, created on first use.
  static func systemAccount(_ purpose: SystemAccount, currency: String, in database: any SQLDatabase)
    async throws -> String
  {
    let id = purpose.id(currency: currency)
    try await AccountRepository.insert(
      StoredAccount(
        id: id, ownerID: "", isSystem: true, nickname: purpose.rawValue, type: .unspecified,
        organizationName: "UnicornPay", currency: currency),
      in: database)
    return id
  }
}

/// The system accounts on the other side of movements that leave or enter a user's accounts.
enum SystemAccount: String, Sendable, CaseIterable {
  /// Money users moved in from their banks (`AddFunds`).
  case deposits
  /// Money paid to billers.
  case bills
  /// Money held for scheduled transfers and bill payments until their date.
  case scheduled
  /// Fees UnicornPay charges.
  case fees
  /// Where opening balances come from.
  case opening

  func id(currency: String) -> String { "system:\(rawValue):\(currency)" }
}
