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

@Suite("INRequestPaymentIntent: resolve, confirm and handle")
struct RequestPaymentTests {
  static func intent(_ payer: String = "CJ", _ units: Int64 = 25, currency: String = "USD") -> RequestPaymentIntent {
    .with {
      if !payer.isEmpty { $0.payer = person(payer) }
      if units != 0 { $0.currencyAmount = usd(units, currency: currency) }
      $0.note = "dinner at Noon's Grill"
    }
  }

  @Test("payer: one → success, several → disambiguation, unusable → SiriKit's reasons, absent → needs value")
  func payerBranches() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      #expect(
        try await fixture.request.resolvePayer(intent: Self.intent(), context: context).successValue?.customIdentifier
          == "cj")
      let both = try await fixture.request.resolvePayer(intent: Self.intent("Celestra"), context: context)
      #expect(both.disambiguationOptions?.count == 2)
      let reasons: [(String, PayerUnsupportedReason)] = [
        ("Pinky Nose", .noAccount), ("Lucky Moontrotter", .credentialsUnverified), ("Ghost", .noValidHandle),
      ]
      for (name, reason) in reasons {
        let result = try await fixture.request.resolvePayer(intent: Self.intent(name), context: context)
        #expect(result.unsupportedReason?.name == EnumCaseName.of(reason), "\(name)")
      }
      let missing = try await fixture.request.resolvePayer(intent: Self.intent(""), context: context)
      #expect(missing.needsValuePrompt == "Who do you want to ask?")
      let amount = try await fixture.request.resolveCurrencyAmount(intent: Self.intent("CJ", 0), context: context)
      #expect(amount.needsValuePrompt == "How much do you want to ask CJ for?")
      let chf = try await fixture.request.resolveCurrencyAmount(
        intent: Self.intent("CJ", 25, currency: "CHF"), context: context)
      #expect(chf.unsupportedReason?.name == "paymentsCurrencyUnsupported")
    }
  }

  @Test("confirm and handle: a pending request into the default account; no money moves")
  func handleRecordsRequest() async throws {
    try await PaymentsFixture.with { fixture in
      let ready = try await fixture.confirm(fixture.request, Self.intent())
      #expect(ready.response.code == .ready)
      let signedOut = try await fixture.confirm(fixture.request, Self.intent(), user: "sleepy")
      #expect(signedOut.response.code == .failureCredentialsUnverified)
      let tooBig = try await fixture.confirm(fixture.request, Self.intent("CJ", 9_000))
      #expect(tooBig.response.code == .failurePaymentsAmountAboveMaximum)
      let answer = try await fixture.handle(fixture.request, Self.intent())
      #expect(answer.response.code == .success)
      #expect(answer.response.paymentRecord.status == .pending)
      #expect(answer.response.paymentRecord.payer.customIdentifier == "cj")
      #expect(answer.response.paymentRecord.paymentMethod.name == "Rainbow Checking")
      #expect(try await fixture.balance("diana-checking") == 125_000)
      let records = try await fixture.store.read { try await PaymentRecordRepository.records(of: "diana", in: $0) }
      #expect(records.map(\.direction) == [.request])
      #expect(records.first?.movementID == "")
    }
  }
}
