import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import MessagingProtos
import SwiftProtobuf
import Synchronization
import ServiceLauncher
import Testing

/// The gateway's domain list while it runs: a name that stands for several replicas (a hosts file
/// the gateway is pointed at plays the DNS), replicas that come and go under load, and a config
/// file edited or reloaded by SIGHUP.
@Suite("Domain discovery and reload, end to end", .serialized)
struct DiscoveryEndToEndTests {
  typealias Gateway = Intentmesh_Gateway_V1_Gateway.Client<HTTP2ClientTransport.Posix>
  typealias Extension = Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>

  /// The replicas routing INSendMessageIntent lists, as the gateway shows them.
  static func replicas(_ gateway: Gateway, of intentClass: String = "INSendMessageIntent") async throws -> [String] {
    let routes = try await gateway.listRoutes(.init()).routes
    return routes.first { $0.intentClass == intentClass }.map { $0.endpoint.components(separatedBy: ",") } ?? []
  }

  /// Polls until `condition` holds (a busy machine is slow), failing after `seconds`.
  static func eventually(
    _ what: String, seconds: Double = 20, _ condition: () async throws -> Bool
  ) async throws {
    do {
      try await waitUntil(what, limit: .milliseconds(Int64(seconds * 1000)), every: .milliseconds(50), condition)
    } catch let timedOut as WaitTimedOut {
      Issue.record("\(timedOut)")
      throw ServiceProcess.Failure(description: "\(timedOut)")
    }
  }

  /// The Resolve calls a replica answered OK, from its metrics.
  static func resolved(by replica: ServiceProcess, host: String) async throws -> Double {
    let port = try await OperationsEndToEndTests.metricsPort(of: replica)
    return MetricsScrape.value(
      in: try MetricsScrape.get(host: host, port: port).body, "grpc_server_handled_total{", #"grpc_method="Resolve""#,
      #"grpc_code="OK""#) ?? 0
  }

  static func write(_ text: String, to path: String) throws {
    // Replaced in one step, as an editor or a Kubernetes ConfigMap update does.
    try text.write(toFile: path, atomically: true, encoding: .utf8)
  }

  @Test("a name's replicas added and removed while calls run through the gateway: every call answered")
  func replicasFollowTheName() async throws {
    let database = TemporaryDatabaseFile("discovery")
    defer { database.remove() }
    let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: hosts) }
    // Three replicas on one store, on three loopback addresses and one port, as pods behind a
    // headless Service are.
    let first = try await ServiceProcess(
      "messaging-service", arguments: ["--host", "127.0.0.1", "--port", "0", "--database", database.path])
    let port = first.port
    let second = try await ServiceProcess(
      "messaging-service", arguments: ["--host", "127.0.0.2", "--port", "\(port)", "--database", database.path])
    let third = try await ServiceProcess(
      "messaging-service", arguments: ["--host", "127.0.0.3", "--port", "\(port)", "--database", database.path])
    try Self.write("127.0.0.1 messaging.test\n", to: hosts)
    let gateway = try await ServiceProcess(
      "gateway",
      arguments: [
        "--port", "0", "--domain", "messaging.test:\(port)", "--hosts-file", hosts, "--resolve-seconds", "0.2",
        "--metrics-port=-1",
      ])

    let outcome = try await Loopback.withClient(port: gateway.port) { client in
      let routes = Gateway(wrapping: client)
      let intents = Extension(wrapping: client)
      #expect(try await Self.replicas(routes) == ["127.0.0.1:\(port) (messaging.test)"])
      let tally = Tally()
      return try await withThrowingTaskGroup(of: Void.self) { group in
        for _ in 0..<4 {
          group.addTask {
            while tally.running {
              do {
                let resolved = try await intents.resolve(
                  .with {
                    $0.context = MessagingEndToEndTests.context
                    $0.intent = try MessagingEndToEndTests.sendIntent()
                  })
                tally.record(answered: resolved.complete)
              } catch {
                tally.record(failure: "\(error)")
              }
            }
          }
        }
        // A replica joins the name: routed to once it answers its health check.
        try Self.write("127.0.0.1 messaging.test\n127.0.0.2 messaging.test\n", to: hosts)
        try await Self.eventually("the second replica is routed") {
          try await Self.replicas(routes).count == 2
        }
        try await Self.eventually("the second replica answers calls") {
          try await Self.resolved(by: second, host: "127.0.0.2") > 0
        }
        // The first leaves the name (a pod being replaced) and a third joins: the first gets no
        // new call, and is then stopped.
        try Self.write("127.0.0.2 messaging.test\n127.0.0.3 messaging.test\n", to: hosts)
        try await Self.eventually("the first replica is no longer routed") {
          try await Self.replicas(routes) == [
            "127.0.0.2:\(port) (messaging.test)", "127.0.0.3:\(port) (messaging.test)",
          ]
        }
        try await Self.eventually("the third replica answers calls") {
          try await Self.resolved(by: third, host: "127.0.0.3") > 0
        }
        let drained = try await Self.resolved(by: first, host: "127.0.0.1")
        try await Task.sleep(for: .milliseconds(500))
        #expect(try await Self.resolved(by: first, host: "127.0.0.1") == drained, "no call reaches a drained replica")
        #expect(try await first.stop() == 0)
        let before = tally.counts.answered
        try await Self.eventually("calls go on after the first replica stopped") {
          tally.counts.answered > before + 50
        }
        tally.stop()
        try await group.waitForAll()
        return tally.counts
      }
    }
    #expect(outcome.failed.isEmpty, "\(outcome.failed.count) failed calls, first: \(outcome.failed.first ?? "")")
    #expect(outcome.answered > 50)
    #expect(gateway.log.contains("domain replica removed"), "\(gateway.log)")
    #expect(try await gateway.stop() == 0)
    #expect(try await second.stop() == 0)
    #expect(try await third.stop() == 0)
  }

  @Test("a replica that moves (its pod rescheduled) is found again when its connection fails, not at the next lookup")
  func movedReplicaIsLookedUpAgain() async throws {
    let database = TemporaryDatabaseFile("discovery-moved")
    defer { database.remove() }
    let hosts = FileManager.default.temporaryDirectory.appendingPathComponent("hosts-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: hosts) }
    let first = try await ServiceProcess(
      "messaging-service", arguments: ["--host", "127.0.0.4", "--port", "0", "--database", database.path])
    let port = first.port
    try Self.write("127.0.0.4 messaging.test\n", to: hosts)
    // Names are looked up again only every hour: what follows comes from the failed connection.
    let gateway = try await ServiceProcess(
      "gateway",
      arguments: [
        "--port", "0", "--domain", "messaging.test:\(port)", "--hosts-file", hosts, "--resolve-seconds", "3600",
        "--metrics-port=-1",
      ])
    try await Loopback.withClient(port: gateway.port) { client in
      let routes = Gateway(wrapping: client)
      #expect(try await Self.replicas(routes) == ["127.0.0.4:\(port) (messaging.test)"])
      // The pod is replaced: the name now stands for another address, then the old one goes.
      let moved = try await ServiceProcess(
        "messaging-service", arguments: ["--host", "127.0.0.5", "--port", "\(port)", "--database", database.path])
      try Self.write("127.0.0.5 messaging.test\n", to: hosts)
      #expect(try await first.stop() == 0)
      try await Self.eventually("the moved replica is routed") {
        try await Self.replicas(routes) == ["127.0.0.5:\(port) (messaging.test)"]
      }
      let resolved = try await Extension(wrapping: client).resolve(
        .with {
          $0.context = MessagingEndToEndTests.context
          $0.intent = try MessagingEndToEndTests.sendIntent()
        })
      #expect(resolved.complete)
      #expect(try await moved.stop() == 0)
    }
    #expect(try await gateway.stop() == 0)
  }

  /// A stack for the config-file tests: messaging-service and payments-service, and a gateway
  /// whose config file lists messaging only, checked every `resolveSeconds`.
  static func withConfiguredGateway(
    resolveSeconds: String,
    _ body: (_ gateway: ServiceProcess, _ routes: Gateway, _ config: String, _ messaging: Int, _ payments: Int)
      async throws -> Void
  ) async throws {
    let messagingStore = TemporaryDatabaseFile("reload-messaging")
    let paymentsStore = TemporaryDatabaseFile("reload-payments")
    let config = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString).json").path
    defer {
      messagingStore.remove()
      paymentsStore.remove()
      try? FileManager.default.removeItem(atPath: config)
    }
    let messaging = try await ServiceProcess(
      "messaging-service", arguments: ["--port", "0", "--database", messagingStore.path])
    let payments = try await ServiceProcess(
      "payments-service", arguments: ["--port", "0", "--database", paymentsStore.path])
    try Self.write(#"{"domains": ["127.0.0.1:\#(messaging.port)"]}"#, to: config)
    let gateway = try await ServiceProcess(
      "gateway",
      arguments: ["--port", "0", "--config", config, "--resolve-seconds", resolveSeconds, "--metrics-port=-1"])
    try await Loopback.withClient(port: gateway.port) { client in
      try await body(gateway, Gateway(wrapping: client), config, messaging.port, payments.port)
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await messaging.stop() == 0)
    #expect(try await payments.stop() == 0)
  }

  @Test(
    "a domain added to the config file is routed without a restart, one removed is not, a broken file changes nothing")
  func configFileChanges() async throws {
    try await Self.withConfiguredGateway(resolveSeconds: "0.2") { gateway, routes, config, messaging, payments in
      #expect(try await Self.replicas(routes, of: "INSendPaymentIntent").isEmpty)
      try Self.write(#"{"domains": ["127.0.0.1:\#(messaging)", "127.0.0.1:\#(payments)"]}"#, to: config)
      try await Self.eventually("payments is routed") {
        try await Self.replicas(routes, of: "INSendPaymentIntent") == ["127.0.0.1:\(payments)"]
      }
      try Self.write(#"{"domains": ["127.0.0.1:\#(messaging)", "payments"]}"#, to: config)
      try await Task.sleep(for: .seconds(1))
      #expect(try await Self.replicas(routes, of: "INSendPaymentIntent") == ["127.0.0.1:\(payments)"])
      #expect(gateway.log.contains("domain list not reloaded"), "\(gateway.log)")
      try Self.write(#"{"domains": ["127.0.0.1:\#(messaging)"]}"#, to: config)
      try await Self.eventually("payments is no longer routed") {
        try await Self.replicas(routes, of: "INSendPaymentIntent").isEmpty
      }
      #expect(try await Self.replicas(routes) == ["127.0.0.1:\(messaging)"])
    }
  }

  @Test("SIGHUP reloads the config file at once (the gateway would not look for an hour)")
  func sighupReloads() async throws {
    try await Self.withConfiguredGateway(resolveSeconds: "3600") { gateway, routes, config, messaging, payments in
      try Self.write(#"{"domains": ["127.0.0.1:\#(messaging)", "127.0.0.1:\#(payments)"]}"#, to: config)
      try await Task.sleep(for: .milliseconds(500))
      #expect(try await Self.replicas(routes, of: "INSendPaymentIntent").isEmpty, "not before SIGHUP")
      kill(gateway.process.processIdentifier, SIGHUP)
      try await Self.eventually("payments is routed after SIGHUP") {
        try await Self.replicas(routes, of: "INSendPaymentIntent") == ["127.0.0.1:\(payments)"]
      }
      #expect(gateway.log.contains("SIGHUP"), "\(gateway.log)")
    }
  }
}

/// What the load of the discovery test saw.
private final class Tally: Sendable {
  private let state = Mutex((running: true, answered: 0, failed: [String]()))

  var running: Bool { state.withLock { $0.running } }
  var counts: (answered: Int, failed: [String]) { state.withLock { ($0.answered, $0.failed) } }

  func record(answered: Bool) { state.withLock { $0.answered += answered ? 1 : 0 } }
  func record(failure: String) { state.withLock { $0.failed.append(failure) } }
  func stop() { state.withLock { $0.running = false } }
}
