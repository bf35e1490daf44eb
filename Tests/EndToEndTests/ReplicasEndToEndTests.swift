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

/// Two payments-service replicas on one PostgreSQL database behind one gateway. Runs when
/// INTENTMESH_TEST_POSTGRES_URL names a server (CI starts one).
@Suite(
  "Two payments-service replicas on one PostgreSQL behind the gateway", .serialized,
  .enabled(if: TestPostgres.url != nil, "set INTENTMESH_TEST_POSTGRES_URL to run"))
struct ReplicasEndToEndTests {
  @Test("payments sent twice at once through the gateway move money once, whichever replica answers")
  func idempotentAcrossReplicas() async throws {
    let url = try #require(TestPostgres.url)
    let schema = "e2e_replicas_\(UUID().uuidString.prefix(8).lowercased())"
    let database = "\(url)\(url.contains("?") ? "&" : "?")schema=\(schema)"
    let arguments = ["--port", "0", "--database", database, "--log-level", "warning"]
    async let startFirst = ServiceProcess("payments-service", arguments: arguments)
    async let startSecond = ServiceProcess("payments-service", arguments: arguments)
    let replicas = try await [startFirst, startSecond]
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0"] + replicas.flatMap { ["--domain", "127.0.0.1:\($0.port)"] })
    let count = 40
    let answers = try await Loopback.withClient(port: gateway.port) { grpc in
      let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
      return try await withThrowingTaskGroup(of: (String, String, Bool).self) { group in
        for index in 0..<count {
          for _ in 0..<2 {
            group.addTask {
              let answer = try await client.confirmAndHandle(
                .with {
                  $0.context = PaymentsEndToEndTests.context
                  $0.intent = try PaymentsEndToEndTests.payment("replica-\(index)", units: 10)
                })
              return ("replica-\(index)", answer.response.codeName, answer.replayed)
            }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
    }
    let byIdentifier = Dictionary(grouping: answers, by: \.0)
    #expect(byIdentifier.count == count)
    for (identifier, pair) in byIdentifier {
      #expect(pair.map(\.1) == ["success", "success"], "\(identifier)")
      #expect(pair.filter { !$0.2 }.count == 1, "\(identifier): handled once, replayed once")
    }
    // Both replicas answered Handle calls (the gateway spreads calls over them).
    for replica in replicas {
      let port = try await OperationsEndToEndTests.metricsPort(of: replica)
      let handled =
        MetricsScrape.value(
          in: try MetricsScrape.get(port: port).body, "grpc_server_handled_total{", #"grpc_method="Handle""#,
          #"grpc_code="OK""#) ?? 0
      #expect(handled > 0)
    }
    #expect(try await gateway.stop() == 0)
    for replica in replicas { #expect(try await replica.stop() == 0) }

    // The books, read straight from PostgreSQL: 40 payments of 10.00, balanced.
    guard case .postgres(let location) = try StoreLocation(parsing: database) else { return }
    var logger = Logger(label: "audit")
    logger.logLevel = .warning
    let store = try await PostgresStore.open(location, defaultSchema: schema, logger: logger)
    let books = try await store.read { database in
      (
        try await AccountRepository.account("diana-checking", in: database)?.balanceMinor ?? -1,
        try await database.raw("SELECT COUNT(*) AS n FROM payments_movements WHERE kind = 'payment'").first()!
          .decode(column: "n", as: Int.self),
        try await LedgerAudit.problems(in: database)
      )
    }
    #expect(books.0 == 125_000 - Int64(count) * 1_000)
    #expect(books.1 == count)
    #expect(books.2.isEmpty, "\(books.2)")
    try await store.dropSchema()
    try await store.close()
  }
}

/// The PostgreSQL server the tests may use (CI starts one and sets INTENTMESH_TEST_POSTGRES_URL).
enum TestPostgres {
  static var url: String? {
    ProcessInfo.processInfo.environment["INTENTMESH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
  }
}
