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
import Synchronization
import ServiceLauncher
import Testing

@Suite("payments-service end to end: killed mid-handle, and through the gateway", .serialized)
struct PaymentsEndToEndTests {
  typealias Extension = Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>
  typealias Gateway = Intentmesh_Gateway_V1_Gateway.Client<HTTP2ClientTransport.Posix>

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "Europe/Zurich"
  }

  static func payment(_ identifier: String, to payee: String = "Buttercup", units: Int64 = 1) throws
    -> Intentmesh_V1_Intent
  {
    try .with {
      $0.intentClass = "INSendPaymentIntent"
      $0.identifier = identifier
      $0.payload = try .init(
        message: Intentmesh_Payments_V1_SendPaymentIntent.with {
          $0.payee = .with { $0.displayName = payee }
          $0.currencyAmount = .with {
            $0.currencyCode = "USD"; $0.units = units
          }
        })
    }
  }

  /// What the stopped service's SQLite file holds.
  struct Books {
    var checking: Int64
    var scottChecking: Int64
    var movements: Int
    var handled: Int
    var sent: [String: Int]
    var received: [String: Int]
    var problems: [String]
  }

  /// Opens the service's SQLite file (the service is stopped) and reads the books.
  static func books(at path: String) async throws -> Books {
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "audit"))
    do {
      let books = try await store.read { database in
        let records = try await database.raw(
          "SELECT user_id, direction, COUNT(*) AS n FROM payments_records GROUP BY user_id, direction"
        ).all().map {
          (
            try $0.decode(column: "user_id", as: String.self), try $0.decode(column: "direction", as: String.self),
            try $0.decode(column: "n", as: Int.self)
          )
        }
        return Books(
          checking: try await AccountRepository.account("diana-checking", in: database)?.balanceMinor ?? -1,
          scottChecking: try await AccountRepository.account("scott-checking", in: database)?.balanceMinor ?? -1,
          movements: try await database.raw("SELECT COUNT(*) AS n FROM payments_movements WHERE kind = 'payment'")
            .first()!.decode(column: "n", as: Int.self),
          handled: try await database.raw("SELECT COUNT(*) AS n FROM intentmesh_handled_intents").first()!
            .decode(column: "n", as: Int.self),
          sent: Dictionary(records.filter { $0.1 == "send" }.map { ($0.0, $0.2) }, uniquingKeysWith: +),
          received: Dictionary(records.filter { $0.1 == "receive" }.map { ($0.0, $0.2) }, uniquingKeysWith: +),
          problems: try await LedgerAudit.problems(in: database))
      }
      try await store.close()
      return books
    } catch {
      try? await store.close()
      throw error
    }
  }

  /// Diana and Scott paying each other 1.00 by turns: even indexes are Diana's, odd ones Scott's.
  static func crossPayment(_ index: Int) throws -> Intentmesh_V1_HandleRequest {
    let diana = index.isMultiple(of: 2)
    return try .with {
      $0.context = .with {
        $0.userID = diana ? "diana" : "scott"; $0.timeZone = "Europe/Zurich"
      }
      $0.intent = try payment("kill-\(index)", to: diana ? "Scott" : "Diana")
    }
  }

  /// Checks the books after `paid` payments of each side: both sides' records, money conserved.
  static func expectConserved(_ books: Books, dianaPaid: Int, scottPaid: Int) {
    #expect(books.problems.isEmpty, "\(books.problems)")
    #expect(books.movements == dianaPaid + scottPaid)
    #expect(books.sent["diana", default: 0] == dianaPaid && books.received["scott", default: 0] == dianaPaid)
    #expect(books.sent["scott", default: 0] == scottPaid && books.received["diana", default: 0] == scottPaid)
    #expect(books.checking == 125_000 - Int64(dianaPaid) * 100 + Int64(scottPaid) * 100)
    #expect(books.checking + books.scottChecking == 125_000 + 102_000)
  }

  @Test("SIGKILL while two users pay each other leaves whole payments only, on both sides; retries move money once")
  func killedMidHandle() async throws {
    let file = TemporaryDatabaseFile("pay-kill")
    defer { file.remove() }
    let database = file.path
    let arguments = ["--port", "0", "--database", database, "--log-level", "warning"]
    let count = 300

    let first = try await ServiceProcess("payments-service", arguments: arguments)
    let answered = Counter()
    try await Loopback.withClient(port: first.port) { grpc in
      // Scott can pay Diana, with 1,000.00 more (through the app API).
      let app = Intentmesh_Payments_V1_UnicornPayApp.Client(wrapping: grpc)
      let scott = TestIdentity.metadata(for: "scott")
      _ = try await app.addPayee(
        .with {
          $0.payee = .with {
            $0.displayName = "Diana Huang"; $0.handle = "diana@unicornpay.example"
          }
        }, metadata: scott)
      _ = try await app.addFunds(
        .with {
          $0.accountIdentifier = "scott-checking"
          $0.amount = .with {
            $0.currencyCode = "USD"; $0.units = 1_000
          }
        }, metadata: scott)
      let client = Extension(wrapping: grpc)
      // Sixteen payments in flight at a time: with all of them sent at once, one group commit could
      // make every payment durable before the kill, leaving nothing for it to cut short.
      let next = Counter()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<16 {
          group.addTask {
            while true {
              let index = next.value.add(1, ordering: .relaxed).oldValue
              guard index < count else { return }
              if (try? await client.confirmAndHandle(try Self.crossPayment(index))) != nil {
                answered.value.add(1, ordering: .relaxed)
              }
            }
          }
        }
        // Kill the service once some payments are through and others are in flight.
        group.addTask {
          try await waitUntil("40 payments are answered", limit: .seconds(60), every: .milliseconds(1)) {
            answered.value.load(ordering: .relaxed) >= 40
          }
          kill(first.process.processIdentifier, SIGKILL)
        }
        try await group.waitForAll()
      }
    }
    try await waitUntil("the killed service has exited") { !first.process.isRunning }
    let afterKill = try await Self.books(at: database)
    #expect(afterKill.movements >= answered.value.load(ordering: .relaxed))
    #expect(afterKill.movements < count, "the kill came too late to test anything")
    #expect(afterKill.handled == afterKill.movements)
    Self.expectConserved(
      afterKill, dianaPaid: afterKill.sent["diana", default: 0], scottPaid: afterKill.sent["scott", default: 0])

    // Restart on the same file and retry every payment: those handled before the kill replay.
    let second = try await ServiceProcess("payments-service", arguments: arguments)
    let replays = try await Loopback.withClient(port: second.port) { grpc in
      let client = Extension(wrapping: grpc)
      var replays = 0
      for index in 0..<count {
        let answer = try await client.confirmAndHandle(try Self.crossPayment(index))
        #expect(answer.response.codeName == "success")
        if answer.replayed { replays += 1 }
      }
      return replays
    }
    #expect(try await second.stop() == 0)
    #expect(replays == afterKill.movements)
    Self.expectConserved(try await Self.books(at: database), dianaPaid: count / 2, scottPaid: count / 2)
  }

  @Test("a payment through the gateway: Interact asks for confirmation, then pays; locked devices are refused")
  func throughGateway() async throws {
    let file = TemporaryDatabaseFile("pay-gw")
    defer { file.remove() }
    let database = file.path
    let payments = try await ServiceProcess("payments-service", arguments: ["--port", "0", "--database", database])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(payments.port)"])
    try await Loopback.withClient(port: gateway.port) { grpc in
      let client = Gateway(wrapping: grpc)
      var intent = try Self.payment("", units: 85)
      intent.appName = "CornPay"
      var turn = try await client.interact(
        .with {
          $0.context = Self.context; $0.intent = intent
        })
      #expect(turn.stage == .needsConfirmation)
      #expect(turn.prompt == "Ready to send it?")
      #expect(turn.appName == "UnicornPay")
      #expect(turn.layout.sections.first?.view.kind == "payment-transaction")
      turn = try await client.interact(
        .with {
          $0.context = Self.context; $0.intent = turn.intent; $0.userConfirmed = true
          $0.confirmationToken = turn.confirmationToken
        })
      #expect(turn.stage == .done)
      #expect(turn.response.codeName == "success")
      let response = try Intentmesh_Payments_V1_SendPaymentIntentResponse(unpackingAny: turn.response.payload)
      #expect(response.paymentRecord.status == .completed)
      #expect(response.paymentRecord.currencyAmount.units == 85)

      var locked = Self.context
      locked.deviceLocked = true
      do {
        _ = try await client.interact(
          .with {
            $0.context = locked; $0.intent = try Self.payment("", units: 5)
          })
        Issue.record("expected FAILED_PRECONDITION")
      } catch let error as RPCError {
        #expect(error.code == .failedPrecondition)
        #expect(error.message.contains("unlock"))
      }
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await payments.stop() == 0)
    let books = try await Self.books(at: database)
    #expect(books.checking == 125_000 - 8_500)
    #expect(books.problems.isEmpty)
  }
}

/// A count shared by concurrent tasks.
final class Counter: Sendable {
  let value = Atomic<Int>(0)
}
