internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// UnicornPay's rules for moving money between accounts: the fee (free within one organization,
/// 2.50 across organizations) and the amount a transfer or bill payment may be.
enum TransferRules {
  /// Fee in minor units for a transfer between organizations.
  static let crossOrganizationFeeMinor: Int64 = 250
  /// The largest single transfer or bill payment, in minor units (100,000.00).
  static let maximumMinor: Int64 = 10_000_000

  static func fee(from: StoredAccount, to: StoredAccount) -> Money {
    NameMatching.normalized(from.organizationName) == NameMatching.normalized(to.organizationName)
      ? .zero(from.currency) : Money(crossOrganizationFeeMinor, from.currency)
  }

  /// The exact money a transaction amount names in `currency` (the paying account's), or why not.
  static func amount(_ given: Intentmesh_V1_CurrencyAmount, currency: String) -> Result<Money, AmountProblem> {
    guard !given.currencyCode.isEmpty else { return .failure(.missingCurrency(account: currency)) }
    guard let money = try? Money(given) else {
      return .failure(.invalid("That is not an amount of money UnicornPay can move exactly."))
    }
    guard money.currency == currency else {
      return .failure(.invalid("The account is in \(currency); UnicornPay does not convert \(money.currency)."))
    }
    guard money.minorUnits > 0 else { return .failure(.invalid("The amount must be more than zero.")) }
    guard money.minorUnits <= maximumMinor else {
      return .failure(.invalid("The largest transfer is \(Money(maximumMinor, currency))."))
    }
    return .success(money)
  }

  enum AmountProblem: Error, Equatable {
    case invalid(String)
    /// No currency code: the user names it (the account's is `account`).
    case missingCurrency(account: String)

    var message: String {
      switch self {
      case .invalid(let message): message
      case .missingCurrency(let account): "In which currency? The account is in \(account)."
      }
    }
  }
}
