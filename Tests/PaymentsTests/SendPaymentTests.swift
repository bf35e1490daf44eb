import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import Payments
import PaymentsProtos
import IntentsKitTesting
import Testing
@testable import ServiceKit
@testable import IntentMeshCore

@Suite("INSendPaymentIntent: resolve, confirm and handle")
struct SendPaymentTests {
  static func intent(_ payee: String = "Buttercup", _ units: Int64 = 85, currency: String = "USD", note: String = "")
    -> SendPaymentIntent
  {
    .with {
      if !payee.isEmpty { $0.payee = person(payee) }
      if units != 0 { $0.currencyAmount = usd(units, currency: currency) }
      $0.note = note
    }
  }

  @Test("\"send Buttercup 85 bucks on UnicornPay for rainbow polish\": payee and amount resolve to success")
  func sessionExample() async throws {
    try await PaymentsFixture.with { fixture in
      let intent = Self.intent(note: "rainbow polish")
      let payee = try await fixture.send.resolvePayee(intent: intent, context: fixture.context())
      #expect(payee.successValue?.customIdentifier == "buttercup")
      #expect(payee.successValue?.personHandle.value == "buttercup@unicornpay.example")
      let amount = try await fixture.send.resolveCurrencyAmount(intent: intent, context: fixture.context())
      #expect(amount.successValue == usd(85))
    }
  }

  @Test("payee: several → disambiguation; none or unusable → unsupported with SiriKit's reason; absent → needs value")
  func payeeBranches() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let celestra = try await fixture.send.resolvePayee(intent: Self.intent("Celestra"), context: context)
      #expect(celestra.disambiguationOptions?.map(\.displayName) == ["Celestra Moon", "Celestra Star"])
      let reasons: [(String, PayeeUnsupportedReason)] = [
        ("Pinky Nose", .noAccount), ("Lucky", .credentialsUnverified), ("Ghost", .noValidHandle),
        ("Nobody Known", .noAccount),
      ]
      for (name, reason) in reasons {
        let result = try await fixture.send.resolvePayee(intent: Self.intent(name), context: context)
        #expect(result.unsupportedReason?.name == EnumCaseName.of(reason), "\(name)")
        #expect(result.unsupportedReason?.message.isEmpty == false)
      }
      let missing = try await fixture.send.resolvePayee(intent: Self.intent(""), context: context)
      #expect(missing.needsValuePrompt == "Who do you want to pay?")
      // 1,300 USD is more than Rainbow Checking's 1,250.00.
      let tooMuch = try await fixture.send.resolvePayee(intent: Self.intent("Buttercup", 1_300), context: context)
      #expect(tooMuch.unsupportedReason?.name == "insufficientFunds")
    }
  }

  @Test("payee from the user's vocabulary: \"Sparkle Sparkly\" names Scott")
  func vocabulary() async throws {
    try await PaymentsFixture.with { fixture in
      let before = try await fixture.send.resolvePayee(
        intent: Self.intent("Sparkle Sparkly"), context: fixture.context())
      #expect(before.unsupportedReason != nil)
      try await fixture.setVocabulary(.contactName, [("Sparkle Sparkly", "scott")])
      let after = try await fixture.send.resolvePayee(
        intent: Self.intent("Sparkle Sparkly"), context: fixture.context())
      #expect(after.successValue?.customIdentifier == "scott")
    }
  }

  @Test("amount: missing → needs value; CHF, too small, too large → their reasons; sub-cent → unsupported")
  func amountBranches() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let missing = try await fixture.send.resolveCurrencyAmount(intent: Self.intent("Buttercup", 0), context: context)
      #expect(missing.needsValuePrompt == "How much do you want to send to Buttercup?")
      let cases: [(SendPaymentIntent, AmountUnsupportedReason)] = [
        (Self.intent("Buttercup", 20, currency: "CHF"), .paymentsCurrencyUnsupported),
        (
          .with {
            $0.payee = person("Buttercup"); $0.currencyAmount = usd(0, 500_000_000)
          }, .paymentsAmountBelowMinimum
        ),
        (Self.intent("Buttercup", 6_000), .paymentsAmountAboveMaximum),
      ]
      for (intent, reason) in cases {
        let result = try await fixture.send.resolveCurrencyAmount(intent: intent, context: context)
        #expect(result.unsupportedReason?.name == EnumCaseName.of(reason))
      }
      let chf = try await fixture.send.resolveCurrencyAmount(
        intent: Self.intent("Buttercup", 20, currency: "CHF"), context: context)
      #expect(chf.unsupportedReason?.message == "UnicornPay takes USD and EUR, not CHF.")
      let subCent = try await fixture.send.resolveCurrencyAmount(
        intent: .with { $0.currencyAmount = usd(5, 1_000_000) }, context: context)
      #expect(subCent.unsupportedReason?.message == "USD amounts have at most 2 decimals.")
      // No currency code: the user is asked which (never taken as USD); codes are ISO 4217 as given.
      let bare = try await fixture.send.resolveCurrencyAmount(
        intent: .with { $0.currencyAmount = .with { $0.units = 18 } }, context: context)
      #expect(bare.needsValuePrompt == "In which currency? Say the amount with its currency, like 25 USD.")
      let lower = try await fixture.send.resolveCurrencyAmount(
        intent: Self.intent("Buttercup", 18, currency: "usd"), context: context)
      #expect(lower.unsupportedReason?.name == "paymentsCurrencyUnsupported")
      #expect(lower.unsupportedReason?.message == "UnicornPay takes USD and EUR, not usd.")
    }
  }

  @Test("confirm: ready with a pending record, or the code of what stands in the way")
  func confirmBranches() async throws {
    try await PaymentsFixture.with { fixture in
      let ready = try await fixture.confirm(fixture.send, Self.intent(note: "rainbow polish"))
      #expect(ready.response.code == .ready)
      #expect(ready.response.paymentRecord.status == .pending)
      #expect(ready.response.paymentRecord.paymentMethod.name == "Rainbow Checking")
      let cases: [(String, SendPaymentIntent, SendPaymentIntentResponse.Code)] = [
        ("sleepy", Self.intent(), .failureCredentialsUnverified),
        ("newbie", Self.intent(), .failureTermsAndConditionsAcceptanceRequired),
        ("grounded", Self.intent(), .failureNotEligible),
        ("stranger", Self.intent(), .failureRequiringAppLaunch),
        ("scott", Self.intent(), .failureInsufficientFunds),
        ("diana", Self.intent("Buttercup", 20, currency: "CHF"), .failurePaymentsCurrencyUnsupported),
        ("diana", Self.intent("Buttercup", 5_001), .failurePaymentsAmountAboveMaximum),
        (
          "diana",
          .with {
            $0.payee = person("Buttercup"); $0.currencyAmount = usd(0, 10_000_000)
          }, .failurePaymentsAmountBelowMinimum
        ),
        ("diana", Self.intent("Celestra"), .failure),
      ]
      for (user, intent, code) in cases {
        let answer = try await fixture.confirm(fixture.send, intent, user: user)
        #expect(answer.response.code == code, "\(user) \(intent.payee.displayName) \(intent.currencyAmount)")
      }
      let appLaunch = try await fixture.confirm(fixture.send, Self.intent(), user: "stranger")
      #expect(appLaunch.userActivity?.userInfo["error"] == "noProfile")
      // Scott has a USD account but no EUR one.
      let noBank = try await fixture.confirm(fixture.send, Self.intent("Buttercup", 10, currency: "EUR"), user: "scott")
      #expect(noBank.response.code == .failureNoBankAccount)
    }
  }

  @Test("handle: the money leaves Rainbow Checking once, the record is completed, the books balance")
  func handleMovesMoney() async throws {
    try await PaymentsFixture.with { fixture in
      let answer = try await fixture.handle(fixture.send, Self.intent(note: "rainbow polish"))
      #expect(answer.response.code == .success)
      #expect(answer.response.paymentRecord.status == .completed)
      #expect(answer.response.paymentRecord.payee.customIdentifier == "buttercup")
      #expect(answer.response.paymentRecord.currencyAmount == usd(85))
      #expect(answer.response.paymentRecord.note == "rainbow polish")
      #expect(try await fixture.balance("diana-checking") == 125_000 - 8_500)
      // Buttercup is a UnicornPay user: the money lands in her default USD account.
      #expect(try await fixture.balance("buttercup-balance") == 8_500)
      let records = try await fixture.store.read { try await PaymentRecordRepository.records(of: "diana", in: $0) }
      #expect(records.count == 1)
      #expect(records.first?.amount == Money(8_500, "USD"))
      #expect(records.first?.status == .completed)
      let received = try await fixture.store.read { try await PaymentRecordRepository.records(of: "buttercup", in: $0) }
      #expect(received.map(\.direction) == [.receive])
      #expect(received.first?.counterpartyHandle == "diana@unicornpay.example")
      #expect(received.first?.note == "rainbow polish")
      #expect(received.first?.linkedRecordID == records.first?.id)
      #expect(records.first?.linkedRecordID == received.first?.id)
      #expect(try await fixture.audit().isEmpty)
      // CJ has no EUR account: euros cannot reach CJ, and nothing moves.
      let refused = try await fixture.handle(fixture.send, Self.intent("CJ", 20, currency: "EUR"))
      #expect(refused.response.code == .failurePaymentsCurrencyUnsupported)
      #expect(try await fixture.balance("diana-euro") == 30_000)
      // Once CJ opens one, EUR goes from Diana's EUR account to it.
      try await fixture.store.write { database in
        try await PaymentsApp.openAccount(
          StoredAccount(
            id: "cj-euro", ownerID: "cj", nickname: "Euros", type: .checking, organizationName: "UnicornPay",
            currency: "EUR"),
          at: 0, in: database)
      }
      let euros = try await fixture.handle(fixture.send, Self.intent("CJ", 20, currency: "EUR"))
      #expect(euros.response.code == .success)
      #expect(try await fixture.balance("cj-euro") == 2_000)
      #expect(try await fixture.balance("diana-euro") == 30_000 - 2_000)
    }
  }

  @Test("handle refuses what confirm refuses, and moves nothing")
  func handleRefusals() async throws {
    try await PaymentsFixture.with { fixture in
      let broke = try await fixture.handle(fixture.send, Self.intent("Buttercup", 50), user: "scott")
      #expect(broke.response.code == .failureInsufficientFunds)
      #expect(try await fixture.balance("scott-checking") == 2_000)
      let unresolved = try await fixture.handle(fixture.send, Self.intent("Pinky Nose"))
      #expect(unresolved.response.code == .failure)
      #expect(unresolved.userActivity?.userInfo["error"] == "unresolvedPayee")
      #expect(try await fixture.balance("diana-checking") == 125_000)
      // An amount without a currency code, or with one not in ISO 4217's form, moves nothing.
      for currency in ["", "usd"] {
        let refused = try await fixture.handle(fixture.send, Self.intent("Buttercup", 10, currency: currency))
        #expect(refused.response.code != .success, "\(currency)")
      }
      #expect(try await fixture.balance("diana-checking") == 125_000)
      #expect(try await fixture.audit().isEmpty)
    }
  }
}
