internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import PaymentsProtos
internal import SQLKit

/// An account row: a user's checking, savings or credit account, or one of UnicornPay's own
/// system accounts (deposits, bills, scheduled holds, opening balances) that the other side of every
/// leg lands in.
struct StoredAccount: Sendable, Equatable {
  var id: String
  /// The user who owns it; empty for system accounts.
  var ownerID: String
  var isSystem: Bool
  var nickname: String
  var accountNumber: String
  var type: AccountType
  var organizationName: String
  var currency: String
  /// Signed minor units, kept equal to the sum of the account's legs. Negative on a credit account
  /// means money owed.
  var balanceMinor: Int64
  /// How far below zero the balance may go: 0, or a credit account's limit.
  var overdraftLimitMinor: Int64
  /// The account payments to people are paid from, per currency.
  var isDefault: Bool
  /// Points or miles the account collects (INBalanceAmount with a non-money type).
  var secondaryBalanceType: BalanceType
  var secondaryBalance: Int64

  init(
    id: String, ownerID: String, isSystem: Bool = false, nickname: String, accountNumber: String = "",
    type: AccountType, organizationName: String, currency: String, balanceMinor: Int64 = 0,
    overdraftLimitMinor: Int64 = 0, isDefault: Bool = false, secondaryBalanceType: BalanceType = .unspecified,
    secondaryBalance: Int64 = 0
  ) {
    self.id = id
    self.ownerID = ownerID
    self.isSystem = isSystem
    self.nickname = nickname
    self.accountNumber = accountNumber
    self.type = type
    self.organizationName = organizationName
    self.currency = currency
    self.balanceMinor = balanceMinor
    self.overdraftLimitMinor = overdraftLimitMinor
    self.isDefault = isDefault
    self.secondaryBalanceType = secondaryBalanceType
    self.secondaryBalance = secondaryBalance
  }

  var balance: Money { Money(balanceMinor, currency) }

  /// What can still be spent: the balance plus the overdraft or credit limit.
  var available: Money { Money(balanceMinor + overdraftLimitMinor, currency) }

  /// The account as SiriKit's `INPaymentAccount`, identified by its (masked) account number.
  var paymentAccount: PaymentAccount {
    .with {
      $0.nickname = .with {
        $0.spokenPhrase = nickname
        $0.vocabularyIdentifier = id
      }
      $0.accountNumber = accountNumber
      $0.accountType = type
      $0.organizationName = .with { $0.spokenPhrase = organizationName }
      $0.balance = moneyBalance
      if secondaryBalanceType != .unspecified {
        $0.secondaryBalance = .with {
          $0.balanceType = secondaryBalanceType
          $0.units = secondaryBalance
        }
      }
    }
  }

  /// The money balance as an `INBalanceAmount`.
  var moneyBalance: BalanceAmount {
    let amount = balance.currencyAmount
    return .with {
      $0.balanceType = .money
      $0.units = amount.units
      $0.nanos = amount.nanos
      $0.currencyCode = currency
    }
  }
}

/// Reads and writes account rows.
enum AccountRepository {
  static let columns: SQLQueryString = """
    account_id, owner_id, kind, nickname, account_number, account_type, organization_name, currency, balance_minor,
    overdraft_limit_minor, is_default, secondary_balance_type, secondary_balance
    """

  /// The user's accounts by nickname (kept across requests while the store is unchanged).
  static func accounts(of userID: String, in database: any SQLDatabase) async throws -> [StoredAccount] {
    try await database.cachedRead("payments.accounts", userID: userID) {
      try await database.raw(accountsQuery(of: userID)).all().map(decode)
    }
  }

  /// The query `accounts(of:in:)` runs: in the order of `payments_accounts_by_owner_nickname`.
  static func accountsQuery(of userID: String) -> SQLQueryString {
    "SELECT \(columns) FROM payments_accounts WHERE owner_id = \(bind: userID) AND kind = 'user' ORDER BY nickname"
  }

  static func account(_ id: String, in database: any SQLDatabase) async throws -> StoredAccount? {
    try await database.raw("SELECT \(columns) FROM payments_accounts WHERE account_id = \(bind: id)").first().map(
      decode)
  }

  static func insert(_ account: StoredAccount, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO payments_accounts (\(columns))
      VALUES (\(bind: account.id), \(bind: account.ownerID), \(bind: account.isSystem ? "system" : "user"),
              \(bind: account.nickname), \(bind: account.accountNumber), \(bind: account.type.rawValue),
              \(bind: account.organizationName), \(bind: account.currency), \(bind: account.balanceMinor),
              \(bind: account.overdraftLimitMinor), \(bind: account.isDefault.rowValue),
              \(bind: account.secondaryBalanceType.rawValue), \(bind: account.secondaryBalance))
      ON CONFLICT (account_id) DO NOTHING
      """
    ).run()
  }

  /// Makes none of the user's accounts in `currency` the default.
  static func clearDefault(of userID: String, currency: String, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE payments_accounts SET is_default = 0
      WHERE owner_id = \(bind: userID) AND kind = 'user' AND currency = \(bind: currency)
      """
    ).run()
  }

  static func decode(_ row: any SQLRow) throws -> StoredAccount {
    StoredAccount(
      id: try row.decode(column: "account_id", as: String.self),
      ownerID: try row.decode(column: "owner_id", as: String.self),
      isSystem: try row.decode(column: "kind", as: String.self) == "system",
      nickname: try row.decode(column: "nickname", as: String.self),
      accountNumber: try row.decode(column: "account_number", as: String.self),
      type: AccountType(rawValue: try row.decode(column: "account_type", as: Int.self)) ?? .unspecified,
      organizationName: try row.decode(column: "organization_name", as: String.self),
      currency: try row.decode(column: "currency", as: String.self),
      balanceMinor: try row.decode(column: "balance_minor", as: Int64.self),
      overdraftLimitMinor: try row.decode(column: "overdraft_limit_minor", as: Int64.self),
      isDefault: try row.decodeFlag(column: "is_default"),
      secondaryBalanceType: BalanceType(rawValue: try row.decode(column: "secondary_balance_type", as: Int.self))
        ?? .unspecified,
      secondaryBalance: try row.decode(column: "secondary_balance", as: Int64.self))
  }
}
