internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit

/// An exact amount of one currency in integer minor units (cents): how UnicornPay stores, adds and
/// compares money. Never floating point.
struct Money: Sendable, Hashable, Comparable, CustomStringConvertible {
  var currency: String
  var minorUnits: Int64

  init(_ minorUnits: Int64, _ currency: String) {
    self.minorUnits = minorUnits
    self.currency = currency
  }

  /// Why a wire amount cannot be held exactly.
  enum ConversionError: Error, Equatable, Sendable {
    case unknownCurrency(String)
    /// More fraction digits than the currency has (e.g. 0.001 USD).
    case tooPrecise(currency: String, digits: Int)
    /// units and nanos disagree in sign, or nanos are out of range.
    case malformed
    case overflow
  }

  /// Fraction digits of the currencies UnicornPay knows (ISO 4217 exponents).
  static let fractionDigits: [String: Int] = [
    "USD": 2, "EUR": 2, "CHF": 2, "GBP": 2, "CAD": 2, "AUD": 2, "JPY": 0,
  ]

  /// The exact amount of a wire `CurrencyAmount` (`units + nanos / 1e9`).
  init(_ amount: Intentmesh_V1_CurrencyAmount) throws(ConversionError) {
    // ISO 4217 codes as given: "usd" is no code, and an empty one names no currency.
    let currency = amount.currencyCode
    guard let digits = Self.fractionDigits[currency] else { throw .unknownCurrency(amount.currencyCode) }
    // Not abs(): Int32.min has no positive twin.
    guard amount.nanos > -1_000_000_000, amount.nanos < 1_000_000_000,
      !(amount.units > 0 && amount.nanos < 0), !(amount.units < 0 && amount.nanos > 0)
    else { throw .malformed }
    let nanosPerMinor = Int32(Self.powerOfTen(9 - digits))
    guard amount.nanos % nanosPerMinor == 0 else { throw .tooPrecise(currency: currency, digits: digits) }
    let scale = Self.powerOfTen(digits)
    let (whole, overflowed) = amount.units.multipliedReportingOverflow(by: scale)
    guard !overflowed else { throw .overflow }
    let (total, overflowedAgain) = whole.addingReportingOverflow(Int64(amount.nanos / nanosPerMinor))
    guard !overflowedAgain else { throw .overflow }
    self.init(total, currency)
  }

  /// The wire form.
  var currencyAmount: Intentmesh_V1_CurrencyAmount {
    let digits = Self.fractionDigits[currency] ?? 2
    let scale = Self.powerOfTen(digits)
    let nanosPerMinor = Self.powerOfTen(9 - digits)
    return .with {
      $0.currencyCode = currency
      $0.units = minorUnits / scale
      $0.nanos = Int32((minorUnits % scale) * nanosPerMinor)
    }
  }

  /// "85.00 USD".
  var description: String { DisplayText.currency(currencyAmount) }

  static func < (lhs: Money, rhs: Money) -> Bool {
    precondition(lhs.currency == rhs.currency, "comparing \(lhs.currency) with \(rhs.currency)")
    return lhs.minorUnits < rhs.minorUnits
  }

  static func + (lhs: Money, rhs: Money) -> Money {
    precondition(lhs.currency == rhs.currency, "adding \(lhs.currency) to \(rhs.currency)")
    return Money(lhs.minorUnits + rhs.minorUnits, lhs.currency)
  }

  static prefix func - (money: Money) -> Money { Money(-money.minorUnits, money.currency) }

  private static func powerOfTen(_ exponent: Int) -> Int64 {
    (0..<exponent).reduce(Int64(1)) { value, _ in value * 10 }
  }

  static func zero(_ currency: String) -> Money { Money(0, currency) }
}
