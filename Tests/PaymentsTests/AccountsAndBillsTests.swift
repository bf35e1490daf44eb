import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import Payments
import PaymentsProtos
import IntentsKitTesting
import SQLKit
import Testing

@Suite("INSearchForAccountsIntent, INSearchForBillsIntent and INPayBillIntent")
struct AccountsAndBillsTests {
  static func search(
    nickname: String = "", type: AccountType = .unspecified, organization: String = "",
    balance: BalanceType = .unspecified
  ) -> SearchForAccountsIntent {
    .with {
      if !nickname.isEmpty { $0.accountNickname = .with { $0.spokenPhrase = nickname } }
      $0.accountType = type
      if !organization.isEmpty { $0.organizationName = .with { $0.spokenPhrase = organization } }
      $0.requestedBalanceType = balance
    }
  }

  @Test("a user's accounts are read in an index's nickname order, not sorted on every read (SQLite's plan)")
  func accountsInIndexOrder() async throws {
    guard TestStore.postgresURL == nil else { return }
    try await PaymentsFixture.with { fixture in
      let plan = try await fixture.store.read { database in
        try await database.raw("EXPLAIN QUERY PLAN \(AccountRepository.accountsQuery(of: PaymentsSeed.demoUser))")
          .all().map { try $0.decode(column: "detail", as: String.self) }
      }
      #expect(plan.contains { $0.contains("payments_accounts_by_owner_nickname") }, "\(plan)")
      #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
      let nicknames = try await fixture.store.read { database in
        try await AccountRepository.accounts(of: PaymentsSeed.demoUser, in: database).map(\.nickname)
      }
      #expect(nicknames == nicknames.sorted() && nicknames.count == 4)
    }
  }

  @Test("\"What is the balance on my Rainbow Checking account?\" and the list of all accounts")
  func balances() async throws {
    try await PaymentsFixture.with { fixture in
      let one = try await fixture.handle(fixture.accounts, Self.search(nickname: "Rainbow Checking"))
      #expect(one.response.code == .success)
      #expect(one.response.accounts.map(\.nickname.spokenPhrase) == ["Rainbow Checking"])
      #expect(one.response.accounts.first?.balance.units == 1_250)
      #expect(one.response.accounts.first?.balance.currencyCode == "USD")
      let all = try await fixture.handle(fixture.accounts, Self.search())
      #expect(all.response.accounts.count == 4)
      let bank = try await fixture.handle(fixture.accounts, Self.search(organization: "unicorn bank"))
      #expect(bank.response.accounts.map(\.nickname.spokenPhrase) == ["Rainbow Checking", "Rainbow Savings"])
      let credit = try await fixture.handle(fixture.accounts, Self.search(type: .credit))
      #expect(credit.response.accounts.first?.balance.units == -320)
    }
  }

  @Test("\"How many miles do I have on my Sparkle card?\": the miles balance first")
  func miles() async throws {
    try await PaymentsFixture.with { fixture in
      let answer = try await fixture.handle(fixture.accounts, Self.search(nickname: "Sparkle Card", balance: .miles))
      #expect(answer.response.accounts.count == 1)
      #expect(answer.response.accounts.first?.balance.balanceType == .miles)
      #expect(answer.response.accounts.first?.balance.units == 12_500)
      #expect(answer.response.accounts.first?.secondaryBalance.balanceType == .money)
      let points = try await fixture.handle(fixture.accounts, Self.search(balance: .points))
      #expect(points.response.code == .failureAccountNotFound)
    }
  }

  @Test("nickname: several → disambiguation, none → unsupported, absent → not required; refusals by profile")
  func nicknameBranches() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let rainbow = try await fixture.accounts.resolveNickname(
        intent: Self.search(nickname: "Rainbow"), context: context)
      #expect(rainbow.disambiguationOptions?.map(\.spokenPhrase) == ["Rainbow Checking", "Rainbow Savings"])
      let none = try await fixture.accounts.resolveNickname(intent: Self.search(nickname: "Moon"), context: context)
      #expect(none.unsupportedReason?.message == "You have no account called Moon.")
      #expect(try await fixture.accounts.resolveNickname(intent: Self.search(), context: context).isNotRequired)
      let organization = try await fixture.accounts.resolveOrganization(
        intent: Self.search(organization: "Moon Bank"), context: context)
      #expect(organization.unsupportedReason != nil)
      let notFound = try await fixture.handle(fixture.accounts, Self.search(organization: "Moon Bank"))
      #expect(notFound.response.code == .failureAccountNotFound)
      let newbie = try await fixture.handle(fixture.accounts, Self.search(), user: "newbie")
      #expect(newbie.response.code == .failureTermsAndConditionsAcceptanceRequired)
      let sleepy = try await fixture.handle(fixture.accounts, Self.search(), user: "sleepy")
      #expect(sleepy.response.code == .failureCredentialsUnverified)
    }
  }

  @Test("bills by status, payee, type and due date; none → failureBillNotFound")
  func searchBills() async throws {
    try await PaymentsFixture.with { fixture in
      let unpaid = try await fixture.handle(fixture.bills, .with { $0.status = .unpaid })
      #expect(
        unpaid.response.bills.map(\.billPayee.nickname.spokenPhrase) == [
          "Unicorn Power", "Rainbow Water", "Sparkle Card",
        ])
      let water = try await fixture.handle(fixture.bills, .with { $0.billType = .water })
      #expect(water.response.bills.first?.amountDue == usd(31, 750_000_000))
      let dueThisMonth = try await fixture.handle(
        fixture.bills,
        .with {
          $0.dueDateRange = .with {
            $0.startDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 25
            };
            $0.endDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 31
            }
          }
        })
      #expect(dueThisMonth.response.bills.map(\.billType) == [.electricity, .water])
      let paidEarly = try await fixture.handle(
        fixture.bills,
        .with {
          $0.paymentDateRange = .with {
            $0.startDateComponents = .with {
              $0.year = 2026; $0.month = 5
            }
          }
        })
      #expect(paidEarly.response.bills.map(\.billType) == [.cable])
      let none = try await fixture.handle(fixture.bills, .with { $0.billType = .rent })
      #expect(none.response.code == .failureBillNotFound)
      let payee = try await fixture.bills.resolvePayee(
        intent: .with { $0.billPayee = .with { $0.nickname = .with { $0.spokenPhrase = "Rainbow Water" } } },
        context: fixture.context())
      #expect(payee.successValue?.organizationName.spokenPhrase == "Rainbow Water Works")
      let unknown = try await fixture.bills.resolvePayee(
        intent: .with { $0.billPayee = .with { $0.nickname = .with { $0.spokenPhrase = "Moon Gas" } } },
        context: fixture.context())
      #expect(unknown.unsupportedReason != nil)
    }
  }

  static func payBill(
    _ payee: String = "Unicorn Power", type: BillType = .unspecified, units: Int64 = 0,
    amountType: AmountType = .amountDue, date: DateComponentsRange? = nil
  ) -> PayBillIntent {
    .with {
      if !payee.isEmpty { $0.billPayee = .with { $0.nickname = .with { $0.spokenPhrase = payee } } }
      $0.billType = type
      $0.transactionAmount = amount(units, type: amountType)
      if let date { $0.transactionScheduledDate = date }
    }
  }

  @Test("pay bill: resolve the bill, the default account and the amount due")
  func payBillResolution() async throws {
    try await PaymentsFixture.with { fixture in
      let context = fixture.context()
      let bill = try await fixture.payBill.resolveBill(intent: Self.payBill(), context: context)
      #expect(bill.successValue?.nickname.vocabularyIdentifier == "bill-power")
      let byType = try await fixture.payBill.resolveBill(intent: Self.payBill("", type: .water), context: context)
      #expect(byType.successValue?.nickname.spokenPhrase == "Rainbow Water")
      let paid = try await fixture.payBill.resolveBill(intent: Self.payBill("Cloud Cable"), context: context)
      #expect(paid.unsupportedReason?.message == "You have no unpaid Cloud Cable bill.")
      let nothing = try await fixture.payBill.resolveBill(intent: Self.payBill(""), context: context)
      #expect(nothing.needsValuePrompt == "Which bill do you want to pay?")
      let from = try await fixture.payBill.resolveFromAccount(intent: Self.payBill(), context: context)
      #expect(from.successValue?.nickname.spokenPhrase == "Rainbow Checking")
      let due = try await fixture.payBill.resolveAmount(intent: Self.payBill(), context: context)
      #expect(due.successValue?.amount == usd(84, 200_000_000))
      let minimum = try await fixture.payBill.resolveAmount(
        intent: Self.payBill(amountType: .minimumDue), context: context)
      #expect(minimum.successValue?.amount == usd(25))
      let ask = try await fixture.payBill.resolveAmount(
        intent: Self.payBill(amountType: .unspecified), context: context)
      #expect(ask.needsValuePrompt == "How much do you want to pay? You owe 84.20 USD, at least 25.00 USD.")
      let over = try await fixture.payBill.resolveAmount(
        intent: Self.payBill(units: 100, amountType: .unspecified), context: context)
      #expect(over.unsupportedReason?.message == "You owe Unicorn Power only 84.20 USD.")
    }
  }

  @Test("pay bill: in full → completed; the minimum → still unpaid with less due; scheduled → held until the day")
  func payBillHandle() async throws {
    try await PaymentsFixture.with { fixture in
      let full = try await fixture.handle(fixture.payBill, Self.payBill())
      #expect(full.response.code == .success)
      #expect(full.response.billDetails.paymentStatus == .completed)
      #expect(full.response.billDetails.paymentDate.day == 22)
      #expect(try await fixture.balance("diana-checking") == 125_000 - 8_420)
      #expect(try await fixture.balance("system:bills:USD") == 8_420)

      let minimum = try await fixture.handle(fixture.payBill, Self.payBill("Sparkle Card", amountType: .minimumDue))
      #expect(minimum.response.billDetails.paymentStatus == .unpaid)
      #expect(minimum.response.billDetails.amountDue == usd(285))

      let later = try await fixture.handle(fixture.payBill, Self.payBill("Rainbow Water", date: day(2026, 5, 29)))
      #expect(later.response.code == .success)
      #expect(later.response.billDetails.paymentStatus == .unpaid)
      #expect(try await fixture.balance("system:scheduled:USD") == 3_175)
      // Scheduled in full: paying the water bill again before its day finds nothing due.
      let twice = try await fixture.payBill.resolveAmount(
        intent: Self.payBill("Rainbow Water"), context: fixture.context())
      #expect(twice.unsupportedReason?.message == "Nothing is due on that bill.")
      let refused = try await fixture.handle(fixture.payBill, Self.payBill("Rainbow Water"))
      #expect(refused.userActivity?.userInfo["error"] == "invalidAmount")
      #expect(try await fixture.balance("system:scheduled:USD") == 3_175)
      let onTheDay = Date(timeIntervalSince1970: 1_780_005_600)  // 2026-05-29 00:00 in Zurich
      #expect(
        try await ScheduledSettlement.settleDue(store: fixture.store, now: onTheDay, identifiers: fixture.identifiers)
          == 1)
      let water = try await fixture.store.read { try await BillRepository.bills(of: "diana", in: $0) }.first {
        $0.id == "bill-water"
      }
      #expect(water?.status == .completed)
      #expect(water?.paymentDate == CalendarDay(year: 2026, month: 5, day: 29))
      #expect(try await fixture.audit().isEmpty)

      let again = try await fixture.confirm(fixture.payBill, Self.payBill())
      #expect(again.response.code == .failure)
      #expect(again.userActivity?.userInfo["error"] == "unresolvedBill")
    }
  }
}
