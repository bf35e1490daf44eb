import GRPCCore
import IntentMeshProtos
import IntentsKit
import IntentsKitTesting
import SwiftProtobuf
@testable import Payments
import Testing

/// Payments run beside each other (`WriteConcurrency.concurrent`; on PostgreSQL without the
/// schema's write lock held alone): what one payment read that another moves is the balance, and
/// the ledger's UPDATE checks that itself. Run on SQLite and on PostgreSQL (CI runs the suite on
/// both).
extension ConfirmationUnderConcurrencyTests {
  /// Diana's checking (her default USD account): what it may still pay, and the ledger's problems.
  static func checking(_ store: any IntentStore) async throws -> (spendable: Int64, problems: [String]) {
    try await store.read { database in
      let account = try #require(try await AccountRepository.account("diana-checking", in: database))
      return (account.balanceMinor + account.overdraftLimitMinor, try await LedgerAudit.problems(in: database))
    }
  }

  /// Resolves and confirms `intent` and handles it with the yes; the response code, or the status.
  /// Confirm checks the balance too: when the payments that ran meanwhile left too little, it
  /// answers with the refusal itself and gives no token to say yes with — that answer is the outcome.
  static func pay(_ client: Client, _ intent: Intentmesh_V1_Intent) async throws -> String {
    // Resolve checks the balance too (the payee is unsupported for insufficient funds when it
    // cannot pay): a payment resolved after the others drained the account is refused there.
    let resolution = try await client.resolve(
      .with {
        $0.context = .with { $0.userID = "diana" }
        $0.intent = intent
      })
    guard resolution.complete else {
      let refusedForFunds = resolution.resolutions.contains { parameter in
        parameter.results.contains { $0.unsupported.reason.name == "insufficientFunds" }
      }
      #expect(refusedForFunds, "\(resolution.resolutions)")
      return "failureInsufficientFunds"
    }
    let resolved = resolution.resolvedIntent
    let confirmed = try await client.confirm(
      .with {
        $0.context = .with { $0.userID = "diana" }
        $0.intent = resolved
      })
    guard !confirmed.confirmationToken.isEmpty else { return confirmed.response.codeName }
    return Self.outcome(try await Self.handle(client, resolved, token: confirmed.confirmationToken))
  }

  /// `body` for 0..<`count`, all at once; their answers in the order they came.
  static func atOnce(_ count: Int, _ body: @escaping @Sendable (Int) async throws -> String) async throws -> [String] {
    try await withThrowingTaskGroup(of: String.self) { group in
      for index in 0..<count { group.addTask { try await body(index) } }
      return try await group.reduce(into: []) { $0.append($1) }
    }
  }

  /// A Handle's response code ("replayed" for a replay), or its status and message.
  static func outcome(_ handled: Result<Intentmesh_V1_HandleResponse, RPCError>) -> String {
    switch handled {
    case .success(let response): response.replayed ? "replayed" : response.response.codeName
    case .failure(let error): "\(error.code): \(error.message)"
    }
  }

  @Test(
    "40 payments of 50.00 at once from one account: as many as it holds are sent, the rest refused for insufficient funds; never below its limit, money conserved"
  )
  func drainingOneAccount() async throws {
    try await domain.run { client, _, _, store in
      let before = try await Self.checking(store)
      let count = 40
      let fits = Int(before.spendable / 5_000)
      #expect(fits > 0 && fits < count, "the seed's balance should let some, not all, be paid")
      let outcomes = try await Self.atOnce(count) { index in
        try await Self.pay(client, try PaymentsServiceTests.payment(50, identifier: "drain-\(index)"))
      }
      #expect(outcomes.filter { $0 == "success" }.count == fits, "\(outcomes)")
      #expect(outcomes.filter { $0 != "success" }.allSatisfy { $0 == "failureInsufficientFunds" }, "\(outcomes)")
      let after = try await Self.checking(store)
      #expect(after.spendable == before.spendable - 5_000 * Int64(fits))
      #expect(after.spendable >= 0)
      #expect(after.problems == [])
    }
  }

  @Test("one payment's Handle sent 12 times at once, with its yes: paid once, the others replay that answer")
  func sameIdentifierAtOnce() async throws {
    try await domain.run { client, _, _, store in
      let before = try await Self.checking(store)
      let resolved = try await Self.resolved(client, try PaymentsServiceTests.payment(3, identifier: "once"))
      let token = try await Self.token(client, resolved)
      let outcomes = try await Self.atOnce(12) { _ in
        Self.outcome(try await Self.handle(client, resolved, token: token))
      }
      #expect(outcomes.filter { $0 == "success" }.count == 1, "\(outcomes)")
      #expect(outcomes.filter { $0 == "replayed" }.count == 11, "\(outcomes)")
      let after = try await Self.checking(store)
      #expect(after.spendable == before.spendable - 300)
      #expect(after.problems == [])
    }
  }

  @Test(
    "payments both ways at once (Diana pays Scott while Scott pays Diana, 20 each): every one lands, the books add up"
  )
  func bothWays() async throws {
    try await domain.run { client, _, _, store in
      try await Self.scottKnowsDiana(store)
      let before = try await Self.checking(store)
      // Even: Diana pays Scott; odd: Scott pays Diana.
      let outcomes = try await Self.atOnce(40) { index in
        guard index.isMultiple(of: 2) else {
          let intent = try PaymentsServiceTests.payment(1, to: "Diana Huang", identifier: "to-diana-\(index)")
          let resolved = try await Self.resolved(client, intent, user: "scott")
          let token = try await Self.token(client, resolved, user: "scott")
          return Self.outcome(try await Self.handle(client, resolved, token: token, user: "scott"))
        }
        return try await Self.pay(
          client, try PaymentsServiceTests.payment(2, to: "Scott Andrus", identifier: "to-scott-\(index)"))
      }
      #expect(outcomes.filter { $0 != "success" } == [])
      let after = try await Self.checking(store)
      #expect(after.spendable == before.spendable - 20 * 200 + 20 * 100)
      #expect(after.problems == [])
    }
  }

  @Test("only INSendPaymentIntent's Handle runs beside others; every other payments Handle runs alone")
  func whichHandlesRunConcurrently() {
    #expect(SendPaymentHandler.handleConcurrency == .concurrent)
    #expect(TransferMoneyHandler.handleConcurrency == .serialized)
    #expect(PayBillHandler.handleConcurrency == .serialized)
    #expect(RequestPaymentHandler.handleConcurrency == .serialized)
  }
}
