internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos

/// What UnicornPay accepts for a payment to or from a person: the currencies it takes and the
/// smallest and largest amount per payment (the programming guide: an app that takes euros and US
/// dollars refuses Swiss francs).
struct PaymentLimits: Sendable {
  var currencies: [String]
  var minimum: [String: Int64]
  var maximum: [String: Int64]

  /// UnicornPay's rules: USD and EUR, 1.00 to 5,000.00 per payment.
  static let unicornPay = PaymentLimits(
    currencies: ["USD", "EUR"],
    minimum: ["USD": 100, "EUR": 100],
    maximum: ["USD": 500_000, "EUR": 500_000])

  enum Violation: Sendable, Equatable {
    case currencyUnsupported(String)
    case belowMinimum(Money)
    case aboveMaximum(Money)
  }

  /// The rule `amount` breaks, if any.
  func violation(of amount: Money) -> Violation? {
    guard currencies.contains(amount.currency) else { return .currencyUnsupported(amount.currency) }
    if let minimum = minimum[amount.currency], amount.minorUnits < minimum {
      return .belowMinimum(Money(minimum, amount.currency))
    }
    if let maximum = maximum[amount.currency], amount.minorUnits > maximum {
      return .aboveMaximum(Money(maximum, amount.currency))
    }
    return nil
  }

  /// The sentence a user hears for `violation`.
  func message(for violation: Violation) -> String {
    switch violation {
    case .currencyUnsupported(let currency):
      "UnicornPay takes \(currencies.joined(separator: " and ")), not \(currency)."
    case .belowMinimum(let minimum): "The smallest UnicornPay payment is \(minimum)."
    case .aboveMaximum(let maximum): "The largest UnicornPay payment is \(maximum)."
    }
  }
}
