import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import Payments
import PaymentsProtos
import IntentsKitTesting
import Testing

@Suite("INTransferMoneyIntent: accounts, amount, date, fee, and scheduled transfers")
struct TransferMoneyTests {
  static func intent(
    from: PaymentAccount = account(nickname: "Rainbow Savings"),
    to: PaymentAccount = account(type: .checking, organization: "Unicorn Bank"),
    units: Int64 = 10, date: DateComponentsRange? = nil
  ) -> TransferMoneyIntent {
    .with {
      $0.fromAccount = from
      $0.toAccount = to
      $0.transactionAmount = amount(units)
      if let date { $0.transactionScheduledDate = date }
      $0.transactionNote = "pocket money"
    }
  }

  @Test("accounts by nickname, by vocabulary, by type and organization; several → disambiguation; none → unsupported")
  func accountBranches() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let from = try await fixture.transfer.resolveFromAccount(intent: Self.intent(), context: context)
      #expect(from.successValue?.nickname.vocabularyIdentifier == "diana-savings")
      let to = try await fixture.transfer.resolveToAccount(intent: Self.intent(), context: context)
      #expect(to.successValue?.nickname.spokenPhrase == "Rainbow Checking")
      let checking = try await fixture.transfer.resolveToAccount(
        intent: Self.intent(to: account(type: .checking)), context: context)
      #expect(checking.disambiguationOptions?.map(\.nickname.spokenPhrase) == ["Euro Pocket", "Rainbow Checking"])
      let rainbow = try await fixture.transfer.resolveFromAccount(
        intent: Self.intent(from: account(nickname: "Rainbow")), context: context)
      #expect(rainbow.disambiguationOptions?.count == 2)
      let unknown = try await fixture.transfer.resolveFromAccount(
        intent: Self.intent(from: account(nickname: "Moon Vault")), context: context)
      #expect(unknown.unsupportedReason?.message == "You have no UnicornPay account called Moon Vault.")
      let missing = try await fixture.transfer.resolveFromAccount(
        intent: Self.intent(from: PaymentAccount()), context: context)
      #expect(missing.needsValuePrompt == "From which account?")
      try await fixture.setVocabulary(.paymentsAccountNickname, [("rainy day fund", "diana-savings")])
      let spoken = try await fixture.transfer.resolveFromAccount(
        intent: Self.intent(from: account(nickname: "Rainy Day Fund")), context: context)
      #expect(spoken.successValue?.nickname.vocabularyIdentifier == "diana-savings")
    }
  }

  @Test("to-account: the same account or another currency is unsupported")
  func toAccountRules() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let same = try await fixture.transfer.resolveToAccount(
        intent: Self.intent(to: account(nickname: "Rainbow Savings")), context: context)
      #expect(same.unsupportedReason?.message == "Pick an account other than Rainbow Savings to transfer to.")
      let euro = try await fixture.transfer.resolveToAccount(
        intent: Self.intent(to: account(nickname: "Euro Pocket")), context: context)
      #expect(euro.unsupportedReason?.message.contains("does not convert") == true)
    }
  }

  @Test("amount and date: missing → needs value; past → unsupported; tomorrow → success with the day")
  func amountAndDate() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let missing = try await fixture.transfer.resolveAmount(intent: Self.intent(units: 0), context: context)
      #expect(missing.needsValuePrompt == "How much do you want to transfer?")
      let ten = try await fixture.transfer.resolveAmount(intent: Self.intent(), context: context)
      #expect(ten.successValue?.amount == usd(10))
      let huge = try await fixture.transfer.resolveAmount(intent: Self.intent(units: 200_000), context: context)
      #expect(huge.unsupportedReason?.message == "The largest transfer is 100000.00 USD.")
      let none = try await fixture.transfer.resolveScheduledDate(intent: Self.intent(), context: context)
      #expect(none.isNotRequired)
      let past = try await fixture.transfer.resolveScheduledDate(
        intent: Self.intent(date: day(2026, 5, 21)), context: context)
      #expect(past.unsupportedReason?.message == "2026-05-21 is in the past.")
      let tomorrow = try await fixture.transfer.resolveScheduledDate(
        intent: Self.intent(date: day(2026, 5, 23)), context: context)
      #expect(tomorrow.successValue?.startDateComponents.day == 23)
      let tooFar = try await fixture.transfer.resolveScheduledDate(
        intent: Self.intent(date: day(2027, 6, 1)), context: context)
      #expect(tooFar.unsupportedReason != nil)
    }
  }

  @Test("handle now: within one bank no fee; to another organization the 2.50 fee; balances and books agree")
  func handleNow() async throws {
    try await PaymentsFixture.with { fixture in
      let ready = try await fixture.confirm(fixture.transfer, Self.intent())
      #expect(ready.response.code == .ready)
      #expect(ready.response.transferFee == usd(0))
      let answer = try await fixture.handle(fixture.transfer, Self.intent())
      #expect(answer.response.code == .success)
      #expect(answer.response.transferFee == usd(0))
      #expect(answer.response.fromAccount.balance.units == 4_990)
      #expect(answer.response.toAccount.balance.units == 1_260)
      #expect(answer.response.transactionScheduledDate.startDateComponents.day == 22)
      #expect(try await fixture.balance("diana-savings") == 499_000)
      #expect(try await fixture.balance("diana-checking") == 126_000)

      let toCard = try await fixture.handle(
        fixture.transfer,
        Self.intent(from: account(nickname: "Rainbow Checking"), to: account(nickname: "Sparkle Card"), units: 100))
      #expect(toCard.response.code == .success)
      #expect(toCard.response.transferFee == usd(2, 500_000_000))
      #expect(try await fixture.balance("diana-checking") == 126_000 - 10_000 - 250)
      #expect(try await fixture.balance("diana-sparkle") == -32_000 + 10_000)
      #expect(try await fixture.balance("system:fees:USD") == 250)
      #expect(try await fixture.audit().isEmpty)
    }
  }

  @Test("insufficient funds: the amount plus the fee must be available; a credit account may use its limit")
  func insufficientFunds() async throws {
    try await PaymentsFixture.with { fixture in
      let tooMuch = try await fixture.confirm(
        fixture.transfer, Self.intent(from: account(nickname: "Rainbow Savings"), units: 5_001))
      #expect(tooMuch.response.code == .failureInsufficientFunds)
      // The Sparkle Card owes 320.00 of a 2,000.00 limit: 1,680.00 remain.
      let card = Self.intent(
        from: account(nickname: "Sparkle Card"), to: account(nickname: "Rainbow Checking"), units: 1_677)
      #expect(try await fixture.handle(fixture.transfer, card).response.code == .success)
      #expect(try await fixture.balance("diana-sparkle") == -32_000 - 167_700 - 250)
      let over = Self.intent(
        from: account(nickname: "Sparkle Card"), to: account(nickname: "Rainbow Checking"), units: 1)
      #expect(try await fixture.handle(fixture.transfer, over).response.code == .failureInsufficientFunds)
      #expect(try await fixture.audit().isEmpty)
      let signedOut = try await fixture.confirm(fixture.transfer, Self.intent(), user: "sleepy")
      #expect(signedOut.response.code == .failureCredentialsUnverified)
    }
  }

  @Test("scheduled for tomorrow: held at once, credited on the day, settled exactly once")
  func scheduled() async throws {
    try await PaymentsFixture.with { fixture in
      let answer = try await fixture.handle(fixture.transfer, Self.intent(units: 10, date: day(2026, 5, 23)))
      #expect(answer.response.code == .success)
      #expect(answer.response.transactionScheduledDate.startDateComponents.day == 23)
      #expect(try await fixture.balance("diana-savings") == 499_000)
      #expect(try await fixture.balance("diana-checking") == 125_000)
      #expect(try await fixture.balance("system:scheduled:USD") == 1_000)
      let pending = try await fixture.store.read { try await ScheduledPaymentRepository.payments(of: "diana", in: $0) }
      #expect(pending.map(\.status) == [.pending])

      // Still the 22nd: nothing to settle. Midnight in Zurich on the 23rd is 22:00 UTC on the 22nd.
      let beforeMidnight = Date(timeIntervalSince1970: 1_779_487_199)
      #expect(
        try await ScheduledSettlement.settleDue(
          store: fixture.store, now: beforeMidnight, identifiers: fixture.identifiers) == 0)
      let midnight = Date(timeIntervalSince1970: 1_779_487_200)
      #expect(
        try await ScheduledSettlement.settleDue(store: fixture.store, now: midnight, identifiers: fixture.identifiers)
          == 1)
      #expect(
        try await ScheduledSettlement.settleDue(store: fixture.store, now: midnight, identifiers: fixture.identifiers)
          == 0)
      #expect(try await fixture.balance("diana-checking") == 126_000)
      #expect(try await fixture.balance("system:scheduled:USD") == 0)
      let settled = try await fixture.store.read { try await ScheduledPaymentRepository.payments(of: "diana", in: $0) }
      #expect(settled.map(\.status) == [.completed])
      #expect(try await fixture.audit().isEmpty)
    }
  }
}
