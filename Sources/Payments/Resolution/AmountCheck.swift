internal import Foundation
internal import SwiftProtobuf
internal import PaymentsProtos
internal import IntentMeshProtos
internal import IntentsKit

/// What a payment's currency amount means to UnicornPay: exact money within the limits, missing, or
/// refused for a reason SiriKit names (currency, minimum, maximum) or a plain one (too precise).
enum AmountCheck: Sendable, Equatable {
  case valid(Money)
  case missing
  /// An amount without a currency code: UnicornPay asks which.
  case missingCurrency
  case violation(PaymentLimits.Violation)
  case invalid(String)

  /// Checks `amount`: an ISO 4217 code as given (upper case), one UnicornPay supports.
  static func check(
    _ amount: Intentmesh_V1_CurrencyAmount?, limits: PaymentLimits = .unicornPay
  ) -> AmountCheck {
    guard let amount, amount.units != 0 || amount.nanos != 0 else { return .missing }
    guard !amount.currencyCode.isEmpty else { return .missingCurrency }
    let money: Money
    do {
      money = try Money(amount)
    } catch {
      switch error {
      case .unknownCurrency(let code): return .violation(.currencyUnsupported(code))
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
  func resolution(prompt: String, limits: PaymentLimits = .unicornPay) -> ResolutionResult<
    Intentmesh_V1_CurrencyAmount
  > {
    switch self {
    case .valid(let money): return .success(money.currencyAmount)
    case .missing: return .needsValue(prompt: prompt)
    case .missingCurrency:
      return .needsValue(prompt: "In which currency? Say the amount with its currency, like 25 USD.")
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

  var money: Money? {
    if case .valid(let money) = self { return money }
    return nil
  }
}
