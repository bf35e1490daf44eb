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
import ServiceLifecycle

/// The gateway as its executable assembles it (`GatewayApplication`), on a free loopback port in
/// front of UnicornChat (on a fresh store) and any fake domains, all in this process; generated
/// clients of it that sign in as each request's user.
struct TestGateway {
  typealias Transport = HTTP2ClientTransport.Posix
  let extensionClient: Intentmesh_V1_IntentsExtension.Client<Transport>
  let gatewayClient: Intentmesh_Gateway_V1_Gateway.Client<Transport>
  let directory: DomainDirectory
  let messagingPort: Int
  let fakes: [(FakeDomain, SocketServer)]
  /// The gateway's public port (the relay's).
  let port: Int

  var gatewayPort: Int? { get async { port } }

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"
    $0.timeZone = "Europe/Zurich"
  }

  /// Runs `body` with UnicornChat, `fakes` and a gateway over both; the gateway shuts down
  /// gracefully afterwards (cancelled if it has not within five seconds).
  static func run<T: Sendable>(
    fakes: [FakeDomain] = [],
    layouts: LayoutBuilder = LayoutBuilder(),
    defaultTimeout: Duration = .seconds(10),
    limits: RelayLimits = .defaults,
    cors: CORSPolicy = CORSPolicy(),
    maxMessageBytes: Int = 4 << 20,
    forwarding: GatewayConfiguration.Forwarding = .relay,
    _ body: (TestGateway) async throws -> T
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
    var configuration = GatewayConfiguration(
      host: "127.0.0.1", port: 0, forwarding: forwarding, domains: endpoints, refreshInterval: .milliseconds(200),
      defaultTimeout: defaultTimeout, maximumTimeout: .seconds(30), logLevel: .critical,
      maxRequestMessageBytes: maxMessageBytes, relayLimits: limits, authentication: TestIdentity.authentication,
      cors: cors)
    configuration.layouts = layouts
    do {
      let result = try await serve(configuration, logger: logger) { application, port in
        let directory = application.directory
        // Every domain described before the test starts (a busy machine connects slowly)…
        for _ in 0..<200 {
          // …and UnicornChat's types taken from its reflection (the CLI builds payloads from them).
          if directory.statuses.allSatisfy({ $0.1.manifest != nil }),
            directory.statuses.first?.1.descriptors.files.isEmpty == false
          {
            break
          }
          try await Task.sleep(for: .milliseconds(50))
        }
        let transport = try HTTP2ClientTransport.Posix(
          target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
        return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { client in
          try await body(
            TestGateway(
              extensionClient: .init(wrapping: client), gatewayClient: .init(wrapping: client), directory: directory,
              messagingPort: messaging.port, fakes: fakeServers, port: port))
        }
      }
      await shutdown(messaging, fakeServers, store, boards)
      return result
    } catch {
      await shutdown(messaging, fakeServers, store, boards)
      throw error
    }
  }

  /// Runs the gateway `configuration` assembles while `body` runs with it and its public port.
  static func serve<T: Sendable>(
    _ configuration: GatewayConfiguration, logger: Logger,
    _ body: (GatewayApplication, Int) async throws -> T
  ) async throws -> T {
    let application = try await GatewayApplication(configuration: configuration, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
      tasks.addTask { try await group.run() }
      let outcome: Result<T, any Error>
      do {
        let port = try await application.listeningAddress.port
        outcome = .success(try await body(application, port))
      } catch {
        outcome = .failure(error)
      }
      await group.triggerGracefulShutdown()
      tasks.addTask {
        try await Task.sleep(for: .seconds(5))
        throw CancellationError()
      }
      // The gateway's end, or five seconds: whichever comes first ends the other.
      _ = try? await tasks.next()
      tasks.cancelAll()
      return try outcome.get()
    }
  }

  private static func shutdown(
    _ messaging: SocketServer, _ fakes: [(FakeDomain, SocketServer)], _ store: SQLiteStore,
    _ boards: [HealthStatusBoard]
  ) async {
    // As a service does at shutdown: health Watch streams end, so servers can drain.
    for board in boards { board.finish() }
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
