import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
@testable import Payments
import PaymentsProtos
import SQLKit
import SwiftProtobuf
import Testing

/// The user's yes binds what the user agreed to — payee, amount, accounts, dates, note — not what
/// moves meanwhile: balances change with every other payment on the account, and a yes stays a yes;
/// a value the user agreed to that changed is named, so a host can ask again.
@Suite("The user's yes under concurrent writes: what moves meanwhile keeps it, a changed agreed value is named")
struct ConfirmationUnderConcurrencyTests {
  let domain = InProcessDomain(
    definition: UnicornPay.definition(), manifestDirectory: PaymentsFixture.manifest,
    now: { PaymentsFixture.now })
  typealias Client = InProcessDomain.Client

  static func context(_ user: String = "diana") -> Intentmesh_V1_RequestContext {
    .with {
      $0.userID = user
      $0.timeZone = "Europe/Zurich"
    }
  }

  /// "Move 1.00 USD from Rainbow Checking to Rainbow Savings".
  static func transfer(_ identifier: String, units: Int64 = 1) throws -> Intentmesh_V1_Intent {
    try PaymentsServiceTests.intent(
      "INTransferMoneyIntent",
      TransferMoneyIntent.with {
        $0.fromAccount = account(nickname: "Rainbow Checking")
        $0.toAccount = account(nickname: "Rainbow Savings")
        $0.transactionAmount = amount(units)
      }, identifier: identifier)
  }

  /// The intent as Resolve settles it (every parameter settled).
  static func resolved(_ client: Client, _ intent: Intentmesh_V1_Intent, user: String = "diana") async throws
    -> Intentmesh_V1_Intent
  {
    let resolved = try await client.resolve(
      .with {
        $0.context = context(user)
        $0.intent = intent
      })
    #expect(resolved.complete, "\(resolved.resolutions)")
    return resolved.resolvedIntent
  }

  static func token(_ client: Client, _ intent: Intentmesh_V1_Intent, user: String = "diana") async throws -> String {
    let token = try await ConfirmationTokenTests.token(client, intent, user: user)
    #expect(!token.isEmpty)
    return token
  }

  /// Handle with `token`; the response, or the refusal.
  static func handle(_ client: Client, _ intent: Intentmesh_V1_Intent, token: String, user: String = "diana")
    async throws -> Result<Intentmesh_V1_HandleResponse, RPCError>
  {
    do {
      return .success(
        try await client.handle(
          .with {
            $0.context = context(user)
            $0.intent = intent
            $0.confirmationToken = token
          }))
    } catch let error as RPCError {
      return .failure(error)
    }
  }

  /// Diana in Scott's contacts, so that he can pay her.
  static func scottKnowsDiana(_ store: any IntentStore) async throws {
    _ = try await store.write { database in
      try await PaymentsApp.addPayee(
        StoredPayee(
          id: "diana", displayName: "Diana Huang", givenName: "Diana", familyName: "Huang",
          handle: "diana@unicornpay.example"), for: "scott", in: database)
    }
  }

  static func books(_ store: any IntentStore) async throws -> (checking: Int64, savings: Int64, problems: [String]) {
    try await store.read { database in
      (
        try await AccountRepository.account("diana-checking", in: database)?.balanceMinor ?? -1,
        try await AccountRepository.account("diana-savings", in: database)?.balanceMinor ?? -1,
        try await LedgerAudit.problems(in: database)
      )
    }
  }

  @Test(
    "50 transfers on the same two accounts, all confirmed before any is handled, then each handled with its yes after the others moved the balances: all done once, money conserved"
  )
  func fiftyConcurrentTransfers() async throws {
    try await domain.run { client, _, _, store in
      let before = try await Self.books(store)
      let count = 50
      // Every user's question first: each yes is given while the others are still pending.
      let asked = try await withThrowingTaskGroup(of: (Int, Intentmesh_V1_Intent, String).self) { group in
        for index in 0..<count {
          group.addTask {
            let intent = try await Self.resolved(client, try Self.transfer("transfer-\(index)"))
            return (index, intent, try await Self.token(client, intent))
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      // Then every yes at once; each Handle resolves the intent again first, as the gateway's
      // Interact does, so it carries the balances of the moment.
      let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
        for (index, intent, token) in asked {
          group.addTask {
            let again = try await Self.resolved(client, try Self.transfer("transfer-\(index)"))
            #expect(again.identifier == intent.identifier)
            switch try await Self.handle(client, again, token: token) {
            case .success(let handled): return handled.response.codeName
            case .failure(let error): return "\(error.code): \(error.message)"
            }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(outcomes.filter { $0 != "success" } == [])
      let after = try await Self.books(store)
      #expect(after.checking == before.checking - 100 * Int64(count))
      #expect(after.savings == before.savings + 100 * Int64(count))
      #expect(after.problems == [])
      // Each yes took effect exactly once: a retry replays.
      let (_, intent, token) = try #require(asked.first)
      guard case .success(let replay) = try await Self.handle(client, intent, token: token) else {
        Issue.record("a retried Handle was refused")
        return
      }
      #expect(replay.replayed)
      #expect(try await Self.books(store).checking == after.checking)
    }
  }

  @Test(
    "a payment to the payer between Confirm and the yes (Scott pays Diana): her yes to pay Buttercup still holds; both land"
  )
  func paymentReceivedMeanwhile() async throws {
    try await domain.run { client, _, _, store in
      try await Self.scottKnowsDiana(store)
      let before = try await Self.books(store)
      let mine = try await Self.resolved(client, try PaymentsServiceTests.payment(5, identifier: "diana-pays"))
      let yes = try await Self.token(client, mine)
      // Scott's payment lands in Diana's checking while she is asked.
      let scotts = try await Self.resolved(
        client, try PaymentsServiceTests.payment(7, to: "Diana Huang", identifier: "scott-pays"), user: "scott")
      let scottsYes = try await Self.token(client, scotts, user: "scott")
      guard case .success(let received) = try await Self.handle(client, scotts, token: scottsYes, user: "scott") else {
        Issue.record("Scott's payment was refused")
        return
      }
      #expect(received.response.codeName == "success")
      #expect(try await Self.books(store).checking == before.checking + 700)
      // Her yes, with the intent resolved again now: paid.
      let again = try await Self.resolved(client, try PaymentsServiceTests.payment(5, identifier: "diana-pays"))
      let paid = try await Self.handle(client, again, token: yes)
      #expect((try? paid.get().response.codeName) == "success", "\(paid)")
      #expect(try await Self.books(store).checking == before.checking + 700 - 500)
      #expect(try await Self.books(store).problems == [])
    }
  }

  @Test(
    "a yes to 1.00 is no yes to 2.00: FAILED_PRECONDITION naming transactionAmount (CONFIRMED_VALUES_CHANGED); nothing moves"
  )
  func changedAmountIsNamed() async throws {
    try await domain.run { client, _, _, store in
      let before = try await Self.books(store)
      let one = try await Self.resolved(client, try Self.transfer("changed"))
      let yes = try await Self.token(client, one)
      let two = try await Self.resolved(client, try Self.transfer("changed", units: 2))
      guard case .failure(let error) = try await Self.handle(client, two, token: yes) else {
        Issue.record("a yes to 1.00 paid 2.00")
        return
      }
      #expect(error.code == .failedPrecondition)
      #expect(error.message.contains("transactionAmount changed since the user's yes"), "\(error.message)")
      #expect(error.changedParameters == ["transactionAmount"])
      // Another account is another change, named as such.
      var elsewhere = try TransferMoneyIntent(unpackingAny: one.payload)
      elsewhere.toAccount = account(nickname: "Sparkle Card")
      var other = one
      other.payload = try .init(message: elsewhere)
      other = try await Self.resolved(client, other)
      guard case .failure(let moved) = try await Self.handle(client, other, token: yes) else {
        Issue.record("a yes to Rainbow Savings paid the Sparkle Card")
        return
      }
      #expect(moved.changedParameters == ["toAccount"])
      #expect(try await Self.books(store).checking == before.checking)
    }
  }

  @Test(
    "the amount due of a bill moves between the question and the yes (another payment of it booked): the yes names transactionAmount; asked again, it pays what is due now"
  )
  func billAmountDueMoves() async throws {
    try await domain.run { client, _, _, store in
      let water = try PaymentsServiceTests.intent(
        "INPayBillIntent", AccountsAndBillsTests.payBill("Rainbow Water"), identifier: "water-due")
      let asked = try await Self.resolved(client, water)
      #expect(try PayBillIntent(unpackingAny: asked.payload).transactionAmount.amount.units == 31)
      let yes = try await Self.token(client, asked)
      // Meanwhile 10.00 of the same bill is paid from another device.
      let part = try PaymentsServiceTests.intent(
        "INPayBillIntent", AccountsAndBillsTests.payBill("Rainbow Water", units: 10, amountType: .unspecified),
        identifier: "water-part")
      let partResolved = try await Self.resolved(client, part)
      guard
        case .success(let partPaid) = try await Self.handle(
          client, partResolved, token: try await Self.token(client, partResolved))
      else {
        Issue.record("the part payment was refused")
        return
      }
      #expect(partPaid.response.codeName == "success")
      let again = try await Self.resolved(client, water)
      #expect(try PayBillIntent(unpackingAny: again.payload).transactionAmount.amount.units == 21)
      guard case .failure(let error) = try await Self.handle(client, again, token: yes) else {
        Issue.record("a yes to 31.75 paid another amount")
        return
      }
      #expect(error.changedParameters == ["transactionAmount"])
      // Asked again, with the amount due now.
      let paid = try await Self.handle(client, again, token: try await Self.token(client, again))
      #expect((try? paid.get().response.codeName) == "success", "\(paid)")
      let bill = try await store.read { try await BillRepository.bills(of: "diana", in: $0) }.first {
        $0.id == "bill-water"
      }
      #expect(bill?.amountDue.minorUnits == 0)
    }
  }
}
