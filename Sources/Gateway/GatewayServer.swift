internal import IntentMeshProtos
internal import SwiftProtobuf
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import Logging
internal import NIOCore
internal import ServiceLifecycle
internal import UnixSignals
internal import ServiceKit

/// The gateway executable, assembled: the directory of domains, the pass-through and gateway
/// services, health and request ids on one HTTP/2 port, graceful shutdown on SIGTERM / SIGINT.
package struct GatewayServer: Sendable {
  let configuration: GatewayConfiguration

  package init(configuration: GatewayConfiguration) {
    self.configuration = configuration
  }

  /// Serves until SIGTERM or SIGINT. Off the caller's actor (`@concurrent`): the gateway's
  /// `main.swift` awaits it from the main actor, and start-up (discovery, certificates) runs inline.
  @concurrent
  package func run() async throws {
    // Before anything uses the shared event-loop group, which every server and client here does.
    if let loops = configuration.eventLoops { NIOSingletons.groupLoopCountSuggestion = loops }
    // Before the first logger: with tracing on, log lines carry the trace they belong to.
    let traceExport = try TraceExport.bootstrap(
      serviceName: "gateway", endpoint: configuration.otlpEndpoint, logLevel: configuration.logLevel)
    var logger = Logger(label: "gateway")
    logger.logLevel = configuration.logLevel
    // Names in the domain list stand for every address they resolve to, looked up again while it runs.
    let domainList = configuration.domainList
    let resolver = configuration.resolver
    let plan = try await DomainDiscovery.firstPlan(of: domainList, resolver: resolver, logger: logger)
    let directory = try DomainDirectory(
      endpoints: plan.endpoints, refreshInterval: configuration.refreshInterval,
      tls: configuration.upstreamTLS, logger: logger)
    let discovery = DomainDiscovery(
      directory: directory, list: domainList, initial: plan, resolver: resolver,
      interval: configuration.resolveInterval, logger: logger)
    let router = GatewayRouter(
      directory: directory,
      deadline: CallDeadline(defaultTimeout: configuration.defaultTimeout, maximumTimeout: configuration.maximumTimeout)
    )
    let board = HealthStatusBoard()
    let relayed = configuration.forwarding == .relay
    // Behind the relay, the gRPC server listens on loopback only; the relay owns the public port.
    let transport = ServiceTransport.http2(
      host: relayed ? "127.0.0.1" : configuration.host, port: relayed ? 0 : configuration.port,
      maxRequestMessageBytes: configuration.maxRequestMessageBytes, tls: relayed ? nil : configuration.tls)
    let metrics = RPCMetrics()
    let verifier = try await configuration.authentication.makeVerifier(logger: logger)
    if let warning = PlaintextWarning.message(host: configuration.host, tls: configuration.tls != nil) {
      logger.warning("\(warning)")
    }
    // Behind the relay, the domains' app services are answered on the public port too: listed as
    // the directory knows them.
    let reflectionIndex = try GatewayReflection(
      directory: directory,
      services: ["intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension", "grpc.health.v1.Health"],
      relayed: { relayed ? Array(directory.table.appServices.keys) : [] })
    let reflection = ReflectionService(index: reflectionIndex.index)

    let server = GRPCServer(
      transport: transport,
      services: [
        GatewayExtensionService(router: router), GatewayService(router: router), HealthService(board: board),
        reflection,
      ],
      interceptors: [
        TracingServerInterceptor(), MetricsInterceptor(metrics: metrics), RequestIDInterceptor(),
        UnexpectedErrorInterceptor(logger: logger),
        AuthenticationInterceptor(verifier: verifier),
        MessageSizeInterceptor(limit: configuration.maxRequestMessageBytes),
      ]
    )
    // Behind the relay, the public port also answers Connect and gRPC-Web (HTTP/1.1 and HTTP/2), pages
    // and preflights.
    let web =
      relayed
      ? (
        responder: try WebResponder.make(
          reflection: reflectionIndex, cors: configuration.cors, pages: WebPages(root: configuration.webRoot),
          devTokensFrom: configuration.devTokensFrom, logger: logger),
        requestTimeout: configuration.relayLimits.handshakeTimeout
      ) : nil
    let publicTLS = try configuration.tls.map { try $0.makeContext() }
    let upstreamTLS = try configuration.upstreamTLS.map { try $0.makeContext() }
    let relay =
      relayed
      ? RelayServer(
        host: configuration.host, port: configuration.port, metrics: RelayMetrics(metrics: metrics),
        limits: configuration.relayLimits, tls: publicTLS, logger: logger
      ) {
        RelayRouter(
          directory: directory, deadline: router.deadline, gatewayServer: try await Self.loopbackEndpoint(of: server),
          maxRequestMessageBytes: configuration.maxRequestMessageBytes, upstreamTLS: upstreamTLS, web: web)
      } : nil
    let readiness = ReadinessReporter(
      serviceName: "gateway", appName: "IntentMesh gateway", board: board, logger: logger,
      serviceNames: ["", "intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension"]
    ) {
      // SERVING only once the routing table holds every domain that answered.
      await directory.firstRoundCompleted()
      guard let relay else { return try await server.listeningEndpoint }
      let address = try await relay.listeningAddress
      return "\(address.ipAddress ?? configuration.host):\(address.port ?? configuration.port)"
    }
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: DirectoryService(directory: directory)),
      .init(service: DiscoveryService(discovery: discovery, logger: logger)),
      .init(service: GRPCServerService(server: server, calls: configuration.callExecutor)),
      .init(service: KeySetRefresher(verifier: verifier, interval: configuration.authentication.refreshInterval)),
    ]
    // First, so that it stops last: the spans of the last calls are still sent.
    if let traceExport { services.insert(.init(service: traceExport), at: 0) }
    // Shut down in reverse: the relay drains before the gRPC server behind it stops.
    if let relay { services.append(.init(service: relay)) }
    services.append(.init(service: readiness))
    if let metricsPort = configuration.metricsPort {
      services.append(
        .init(
          service: MetricsHTTPServer(
            metrics: metrics, serviceName: "gateway", host: configuration.host, port: metricsPort, logger: logger)))
    }
    let group = ServiceGroup(
      configuration: .init(
        services: services,
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
      ))
    try await group.run()
    logger.info("stopped cleanly")
  }
}

extension GatewayServer {
  /// The gateway's gRPC server on loopback, once it listens.
  static func loopbackEndpoint(of server: GRPCServer<HTTP2ServerTransport.Posix>) async throws -> DomainEndpoint {
    guard let address = try await server.listeningAddress?.ipv4 else {
      throw GatewayError.invalidArgument("the gateway's gRPC server is not listening")
    }
    return DomainEndpoint(host: address.host, port: address.port)
  }
}

/// Keeps the domain list's replicas current until graceful shutdown, and reloads the list on SIGHUP.
struct DiscoveryService: Service {
  let discovery: DomainDiscovery
  let logger: Logger

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await withDiscardingTaskGroup { group in
        group.addTask { await discovery.run() }
        group.addTask {
          for await _ in await UnixSignalsSequence(trapping: .sighup) {
            logger.info("SIGHUP: reloading the domain list")
            discovery.reload(because: "SIGHUP")
          }
        }
      }
    }
  }
}

/// Runs the directory until graceful shutdown; it stops after the server has drained.
struct DirectoryService: Service {
  let directory: DomainDirectory

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await directory.run()
    }
  }
}
