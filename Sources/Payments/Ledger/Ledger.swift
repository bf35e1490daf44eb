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
  static func post(_ movement: Movement, at millisecondsSince1970: Int64, in database: any SQLDatabase)
    async throws
  {
    guard movement.legs.count >= 2 else { throw Failure.emptyMovement(movementID: movement.id) }
    guard movement.isBalanced else { throw Failure.unbalanced(movementID: movement.id) }
    try await database.raw(
      """
      INSERT INTO payments_movements (movement_id, user_id, kind, intent_identifier, description, created_at)
      VALUES (\(bind: movement.id), \(bind: movement.userID), \(bind: movement.kind.rawValue),
              \(bind: movement.intentIdentifier), \(bind: movement.description), \(bind: millisecondsSince1970))
      """
    ).run()
    for (position, leg) in movement.legs.enumerated() {
      let amount = leg.amount.minorUnits
      // Money leaves a user account only for its owner; it may arrive in anyone's.
      let owner: SQLQueryString = amount < 0 ? "AND owner_id = \(bind: movement.userID)" : ""
      let updated = try await database.changedRows(
        by: """
          UPDATE payments_accounts SET balance_minor = balance_minor + \(bind: amount)
          WHERE account_id = \(bind: leg.accountID) AND currency = \(bind: leg.amount.currency)
            AND (kind = 'system' OR (balance_minor + \(bind: amount) + overdraft_limit_minor >= 0 \(owner)))
          """)
      if updated == 0 {
        let found = try await database.raw(
          """
          SELECT owner_id, kind FROM payments_accounts
          WHERE account_id = \(bind: leg.accountID) AND currency = \(bind: leg.amount.currency)
          """
        ).first()
        guard let found else {
          throw Failure.unknownAccount(accountID: leg.accountID, currency: leg.amount.currency)
        }
        let ownerID = try found.decode(column: "owner_id", as: String.self)
        throw amount < 0 && !UserIdentity.same(ownerID, movement.userID)
          ? Failure.notOwned(accountID: leg.accountID, userID: movement.userID)
          : Failure.wouldOverdraw(accountID: leg.accountID)
      }
      try await database.raw(
        """
        INSERT INTO payments_legs (movement_id, position, account_id, amount_minor, currency)
        VALUES (\(bind: movement.id), \(bind: position), \(bind: leg.accountID), \(bind: amount),
                \(bind: leg.amount.currency))
        """
      ).run()
    }
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
