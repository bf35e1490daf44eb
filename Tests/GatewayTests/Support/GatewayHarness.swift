import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
@testable import Messaging
@testable import ServiceKit

/// UnicornChat and fake domains on loopback sockets, and a gateway in front of them, all in this
/// process; a generated client of the gateway.
struct GatewayHarness {
  typealias Transport = HTTP2ClientTransport.Posix
  let extensionClient: Intentmesh_V1_IntentsExtension.Client<Transport>
  let gatewayClient: Intentmesh_Gateway_V1_Gateway.Client<Transport>
  let directory: DomainDirectory
  let messagingPort: Int
  let fakes: [(FakeDomain, SocketServer)]
  let gatewayServer: SocketServer
  /// The port clients use: the relay's (in front of the gateway's gRPC server), as in the executable.
  let port: Int

  var gatewayPort: Int? { get async { port } }

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"
    $0.timeZone = "Europe/Zurich"
  }

  /// Runs `body` with UnicornChat (on a fresh store), `fakes` and a gateway over both.
  static func run<T: Sendable>(
    fakes: [FakeDomain] = [],
    layouts: LayoutBuilder = LayoutBuilder(),
    defaultTimeout: Duration = .seconds(10),
    limits: RelayLimits = .defaults,
    cors: CORSPolicy = CORSPolicy(),
    maxMessageBytes: Int = 4 << 20,
    _ body: (GatewayHarness) async throws -> T
  ) async throws -> T {
    var logger = Logger(label: "test.gateway")
    logger.logLevel = .critical
    let path = TemporaryDatabase.path(named: "gateway-messaging")
    defer { TemporaryDatabase.remove(path) }
    let store = try await SQLiteStore.open(path: path, logger: logger, readers: 2)
    let manifest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Services/Messaging/Manifest")
    let prepared = try await PreparedDomain.prepare(
      definition: UnicornChat.definition(), store: store, manifestDirectory: manifest,
      now: { Date(timeIntervalSince1970: 1_779_440_400) }, logger: logger)
    prepared.board.set(.serving, for: "")
    // With reflection, as DomainService serves a domain: the gateway describes its types from it.
    let messaging = try await SocketServer.start(
      services: prepared.services + [try ReflectionService(services: ["intentmesh.v1.IntentsExtension"])])
    var fakeServers: [(FakeDomain, SocketServer)] = []
    var boards = [prepared.board]
    for fake in fakes {
      let board = HealthStatusBoard()
      boards.append(board)
      board.set(.serving, for: "")
      fakeServers.append(
        (fake, try await SocketServer.start(services: [fake, HealthService(board: board)] + fake.extraServices)))
    }
    let endpoints =
      [DomainEndpoint(host: "127.0.0.1", port: messaging.port)]
      + fakeServers.map { DomainEndpoint(host: "127.0.0.1", port: $0.1.port) }
    let directory = try DomainDirectory(endpoints: endpoints, refreshInterval: .milliseconds(200), logger: logger)
    let router = GatewayRouter(
      directory: directory, deadline: CallDeadline(defaultTimeout: defaultTimeout, maximumTimeout: .seconds(30)))
    let reflection = try GatewayReflection(
      directory: directory, services: ["intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension"],
      relayed: { [] })
    let gateway = try await SocketServer.start(services: [
      GatewayExtensionService(router: router), GatewayService(router: router, layouts: layouts),
      ReflectionService(index: reflection.index),
    ])
    let directoryTask = Task { await directory.run() }
    // Every domain described before the test starts (a busy machine connects slowly).
    for _ in 0..<100 {
      await directory.refreshAll()
      // …and UnicornChat's types taken from its reflection (the CLI builds payloads from them).
      if directory.statuses.allSatisfy({ $0.1.manifest != nil }),
        directory.statuses.first?.1.descriptors.files.isEmpty == false
      {
        break
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    defer { directoryTask.cancel() }
    // The web side (Connect, gRPC-Web, pages) as the executable has it.
    let gatewayEndpoint = DomainEndpoint(host: "127.0.0.1", port: gateway.port)
    let web = WebResponder(schema: { reflection.schema() }, cors: cors)
    let relay = RelayServer(
      host: "127.0.0.1", port: 0, metrics: RelayMetrics(metrics: nil), limits: limits, logger: logger
    ) {
      RelayRouter(
        directory: directory, deadline: router.deadline, gatewayServer: gatewayEndpoint,
        maxRequestMessageBytes: maxMessageBytes, web: (web, limits.handshakeTimeout))
    }
    let relayTask = Task { try await relay.run() }
    defer { relayTask.cancel() }
    let relayPort = try await relay.listeningPort
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: relayPort), transportSecurity: .plaintext)
    do {
      let result = try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) {
        client in
        try await body(
          GatewayHarness(
            extensionClient: .init(wrapping: client), gatewayClient: .init(wrapping: client), directory: directory,
            messagingPort: messaging.port, fakes: fakeServers, gatewayServer: gateway, port: relayPort))
      }
      await shutdown(gateway, messaging, fakeServers, directoryTask, store, boards)
      return result
    } catch {
      await shutdown(gateway, messaging, fakeServers, directoryTask, store, boards)
      throw error
    }
  }

  private static func shutdown(
    _ gateway: SocketServer, _ messaging: SocketServer, _ fakes: [(FakeDomain, SocketServer)],
    _ directoryTask: Task<Void, Never>, _ store: SQLiteStore, _ boards: [HealthStatusBoard]
  ) async {
    // As a service does at shutdown: health Watch streams end, so servers can drain.
    for board in boards { board.finish() }
    await gateway.stop()
    directoryTask.cancel()
    await directoryTask.value
    await messaging.stop()
    for (_, server) in fakes { await server.stop() }
    try? await store.close()
  }

  static func intent(
    _ intentClass: String, app: String = "", identifier: String = "", payload: (any SwiftProtobuf.Message)? = nil
  )
    throws -> Intentmesh_V1_Intent
  {
    try .with {
      $0.intentClass = intentClass
      $0.appName = app
      $0.identifier = identifier
      if let payload { $0.payload = try .init(message: payload) }
    }
  }
}

import SwiftProtobuf
