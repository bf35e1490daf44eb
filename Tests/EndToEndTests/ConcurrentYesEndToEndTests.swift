import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
@testable import IntentsKit
@testable import IntentsRuntime
import Logging
@testable import Payments
import PaymentsProtos
import SQLKit
import SwiftProtobuf
import Testing

/// Many users' yeses at once, through the gateway as a client drives it: "move 1.00 USD from Rainbow
/// Checking to Rainbow Savings", each asked (NEEDS_CONFIRMATION) and then confirmed with its token
/// while the others move the same balances. Every yes is a yes: all done, each once, money conserved.
@Suite("Concurrent yeses through Interact: 50 confirmed transfers on the same accounts", .serialized)
struct ConcurrentYesEndToEndTests {
  typealias Gateway = Intentmesh_Gateway_V1_Gateway.Client<HTTP2ClientTransport.Posix>

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "Europe/Zurich"
  }

  static func transfer() throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = "INTransferMoneyIntent"
      $0.appName = "UnicornPay"
      $0.payload = try .init(
        message: Intentmesh_Payments_V1_TransferMoneyIntent.with {
          $0.fromAccount = .with { $0.nickname = .with { $0.spokenPhrase = "Rainbow Checking" } }
          $0.toAccount = .with { $0.nickname = .with { $0.spokenPhrase = "Rainbow Savings" } }
          $0.transactionAmount = .with {
            $0.amount = .with {
              $0.currencyCode = "USD"; $0.units = 1
            }
          }
        })
    }
  }

  /// How a client answers: ask first and say yes to the question, or say yes already on the first
  /// turn (the gateway then asks with a token, and the client says yes again).
  enum Manner: String, CaseIterable, Sendable {
    case askThenYes = "asked, then yes"
    case yesFirst = "yes on the first turn"
  }

  /// One user's conversation to its end: the final stage and response code, and how many turns
  /// (a turn retried after a timeout counts once: the client sends the same turn again, which the
  /// intent's identifier makes exactly-once).
  static func converse(_ client: Gateway, _ manner: Manner) async throws -> (String, Int) {
    var request = Intentmesh_Gateway_V1_InteractRequest()
    request.context = Self.context
    request.intent = try Self.transfer()
    request.userConfirmed = manner == .yesFirst
    // As long as the gateway lets a call run: a loaded machine (the whole suite at once on two
    // cores) can take more than the default 10 s for a burst of 50 durable writes.
    var options = CallOptions.defaults
    options.timeout = .seconds(30)
    for turns in 1...6 {
      var answer: Intentmesh_Gateway_V1_InteractResponse?
      for attempt in 1...3 where answer == nil {
        do {
          answer = try await client.interact(request, options: options)
        } catch let error as RPCError where attempt < 3 && [.deadlineExceeded, .unavailable].contains(error.code) {
          continue
        } catch let error as RPCError {
          return ("\(error.code): \(error.message)", turns)
        }
      }
      guard let turn = answer else { return ("no answer", turns) }
      switch turn.stage {
      case .needsConfirmation:
        // The user agreed to what they were shown: say yes with its token.
        request.intent = turn.intent
        request.userConfirmed = true
        request.confirmationToken = turn.confirmationToken
      case .done, .failed:
        return ("\(turn.stage) \(turn.response.codeName)", turns)
      default:
        return ("\(turn.stage) \(turn.prompt)", turns)
      }
    }
    return ("still asking after 6 turns", 6)
  }

  static func balances(at path: String) async throws -> (checking: Int64, savings: Int64, problems: [String]) {
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "audit"))
    do {
      let books = try await store.read { database in
        (
          try await AccountRepository.account("diana-checking", in: database)?.balanceMinor ?? -1,
          try await AccountRepository.account("diana-savings", in: database)?.balanceMinor ?? -1,
          try await LedgerAudit.problems(in: database)
        )
      }
      try await store.close()
      return books
    } catch {
      try? await store.close()
      throw error
    }
  }

  @Test(
    "50 users' transfers at once, each manner: every yes done in two turns (ask → yes, or a yes without a token → asked → yes), money conserved",
    arguments: Manner.allCases)
  func fiftyAtOnce(manner: Manner) async throws {
    let file = TemporaryDatabaseFile("concurrent-yes")
    defer { file.remove() }
    let count = 50
    let payments = try await ServiceProcess("payments-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(payments.port)"])
    let outcomes = try await Loopback.withClient(port: gateway.port) { grpc in
      let client = Gateway(wrapping: grpc)
      // Warm: the routes are known before the burst.
      _ = try await Self.converse(client, .askThenYes)
      return try await withThrowingTaskGroup(of: (String, Int).self) { group in
        for _ in 0..<count { group.addTask { try await Self.converse(client, manner) } }
        return try await group.reduce(into: []) { $0.append($1) }
      }
    }
    let logs = "gateway:\n\(gateway.log.suffix(3000))\npayments-service:\n\(payments.log.suffix(3000))"
    #expect(try await gateway.stop() == 0)
    #expect(try await payments.stop() == 0)
    let done = outcomes.filter { $0.0 == "done success" }
    let others = Dictionary(outcomes.filter { $0.0 != "done success" }.map { ($0.0, 1) }, uniquingKeysWith: +)
    print("concurrent yes (\(manner.rawValue)): \(done.count) of \(count) done; others: \(others)")
    #expect(done.count == count, "\(logs)")
    // Two turns either way (a first yes without a token is asked with one): a yes is never asked again.
    #expect(outcomes.allSatisfy { $0.1 == 2 }, "\(outcomes.map(\.1))")
    let books = try await Self.balances(at: file.path)
    #expect(books.checking == 125_000 - 100 * Int64(done.count + 1))
    // Conserved: what left checking is in savings (no fee between two Unicorn Bank accounts).
    #expect(books.checking + books.savings == 125_000 + 500_000)
    #expect(books.problems.isEmpty)
  }
}
