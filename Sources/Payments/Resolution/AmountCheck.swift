internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
package import IntentMeshProtos
package import IntentsKit

/// What a payment's currency amount means to UnicornPay: exact money within the limits, missing, or
/// refused for a reason SiriKit names (currency, minimum, maximum) or a plain one (too precise).
package enum AmountCheck: Sendable, Equatable {
  case valid(Money)
  case missing
  case violation(PaymentLimits.Violation)
  case invalid(String)

  /// Checks `amount`; an amount without a currency is taken in `defaultCurrency`.
  package static func check(
    _ amount: Intentmesh_V1_CurrencyAmount?, defaultCurrency: String, limits: PaymentLimits = .unicornPay
  ) -> AmountCheck {
    guard var amount, amount.units != 0 || amount.nanos != 0 else { return .missing }
    if amount.currencyCode.isEmpty { amount.currencyCode = defaultCurrency }
    let money: Money
    do {
      money = try Money(amount)
    } catch {
      switch error {
      case .unknownCurrency(let code): return .violation(.currencyUnsupported(code.uppercased()))
      case .tooPrecise(let currency, let digits):
        return .invalid("\(currency) amounts have at most \(digits) decimals.")
      case .malformed: return .invalid("That amount is malformed: units and nanos must have the same sign.")
      case .overflow: return .invalid("That amount is too large.")
      }
    }
    if money.minorUnits < 0 { return .invalid("The amount must be positive.") }
    if let violation = limits.violation(of: money) { return .violation(violation) }
    return .valid(money)
  }

  /// The resolution of SendPayment's and RequestPayment's currency amount.
  package func resolution(prompt: String, limits: PaymentLimits = .unicornPay) -> ResolutionResult<
    Intentmesh_V1_CurrencyAmount
  > {
    switch self {
    case .valid(let money): return .success(money.currencyAmount)
    case .missing: return .needsValue(prompt: prompt)
    case .invalid(let message): return .unsupported(ResolutionReason(message: message))
    case .violation(let violation):
      let reason: AmountUnsupportedReason =
        switch violation {
        case .currencyUnsupported: .paymentsCurrencyUnsupported
        case .belowMinimum: .paymentsAmountBelowMinimum
        case .aboveMaximum: .paymentsAmountAboveMaximum
        }
      return .unsupported(ResolutionReason(reason, limits.message(for: violation)))
    }
  }

  package var money: Money? {
    if case .valid(let money) = self { return money }
    return nil
  }
}
