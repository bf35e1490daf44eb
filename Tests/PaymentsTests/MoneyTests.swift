import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import Payments
import Testing

@Suite("Money: exact minor units, never floating point")
struct MoneyTests {
  @Test("units and nanos become exact cents and back")
  func roundTrip() throws {
    let money = try Money(usd(85, 990_000_000))
    #expect(money == Money(8_599, "USD"))
    #expect(money.currencyAmount == usd(85, 990_000_000))
    #expect(money.description == "85.99 USD")
    #expect(try Money(usd(0, 10_000_000)) == Money(1, "USD"))
    #expect(try Money(usd(-3, -500_000_000)) == Money(-350, "USD"))
    #expect(Money(-350, "USD").currencyAmount == usd(-3, -500_000_000))
    #expect(try Money(usd(1_500, currency: "JPY")) == Money(1_500, "JPY"))
    #expect(throws: Money.ConversionError.unknownCurrency("jpy")) { try Money(usd(1_500, currency: "jpy")) }
  }

  @Test("0.1 + 0.2 is 0.3 exactly")
  func noFloatingPoint() throws {
    let sum = try Money(usd(0, 100_000_000)) + Money(usd(0, 200_000_000))
    #expect(sum == (try Money(usd(0, 300_000_000))))
  }

  @Test("amounts it cannot hold exactly are refused with the reason")
  func refusals() {
    #expect(throws: Money.ConversionError.tooPrecise(currency: "USD", digits: 2)) { try Money(usd(1, 1_000_000)) }
    #expect(throws: Money.ConversionError.tooPrecise(currency: "JPY", digits: 0)) {
      try Money(usd(1, 500_000_000, currency: "JPY"))
    }
    #expect(throws: Money.ConversionError.malformed) { try Money(usd(1, -1)) }
    #expect(throws: Money.ConversionError.malformed) { try Money(usd(1, 1_000_000_000)) }
    #expect(throws: Money.ConversionError.malformed) { try Money(usd(0, Int32.min)) }
    #expect(throws: Money.ConversionError.unknownCurrency("XYZ")) { try Money(usd(1, currency: "XYZ")) }
    #expect(throws: Money.ConversionError.overflow) { try Money(usd(Int64.max / 10)) }
  }

  @Test("UnicornPay's limits: USD and EUR, 1.00 to 5,000.00")
  func limits() {
    let limits = PaymentLimits.unicornPay
    #expect(limits.violation(of: Money(100, "USD")) == nil)
    #expect(limits.violation(of: Money(500_000, "EUR")) == nil)
    #expect(limits.violation(of: Money(99, "USD")) == .belowMinimum(Money(100, "USD")))
    #expect(limits.violation(of: Money(500_001, "USD")) == .aboveMaximum(Money(500_000, "USD")))
    #expect(limits.violation(of: Money(1_000, "CHF")) == .currencyUnsupported("CHF"))
    #expect(limits.message(for: .currencyUnsupported("CHF")) == "UnicornPay takes USD and EUR, not CHF.")
  }

  @Test("a movement balances only when its legs sum to zero per currency")
  func movementBalance() {
    let balanced = Movement.between(
      id: "m", userID: "u", kind: .payment, description: "", from: "a", to: "b", amount: Money(500, "USD"))
    #expect(balanced.isBalanced)
    let unbalanced = Movement(
      id: "m", userID: "u", kind: .payment, description: "",
      legs: [.init("a", Money(-500, "USD")), .init("b", Money(500, "EUR"))])
    #expect(!unbalanced.isBalanced)
  }
}
