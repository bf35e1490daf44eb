internal import IntentMeshProtos
internal import GRPCCore
internal import GRPCInProcessTransport
internal import GRPCNIOTransportHTTP2
package import Logging
internal import NIOCore
internal import ServiceLifecycle
internal import ServiceKit

/// The whole gateway, assembled once from its configuration: the directory of domains and their
/// discovery, the relay on the public port with the web side, the gateway's own gRPC server (in
/// process behind the relay, on the public port without it), health, readiness, metrics and key
/// refresh. The executable runs it (`GatewayServer`), and so does every gateway test, on port 0.
///
/// It runs as one service: its parts in a `ServiceGroup` of their own, which shuts down gracefully
/// when the group it runs in does — in reverse order, so the relay drains its calls before the
/// server behind it stops.
package final class GatewayApplication: Service, Sendable {
  let configuration: GatewayConfiguration
  /// The domains the gateway routes to, as it knows them.
  let directory: DomainDirectory
  private let parts: [ServiceGroupConfiguration.ServiceConfiguration]
  private let logger: Logger
  private let publicAddress: @Sendable () async throws -> (host: String, port: Int)

  /// Assembles the gateway. Reads the domain list (resolving its names), loads the token keys and
  /// TLS material; throws, and nothing runs, when any of them cannot be had.
  package init(configuration: GatewayConfiguration, logger: Logger) async throws {
    self.configuration = configuration
    self.logger = logger
    let domainList = configuration.domainList
    let resolver = configuration.resolver
    let plan = try await DomainDiscovery.firstPlan(of: domainList, resolver: resolver, logger: logger)
    let directory = try DomainDirectory(
      endpoints: plan.endpoints, refreshInterval: configuration.refreshInterval,
      tls: configuration.upstreamTLS, logger: logger)
    self.directory = directory
    let discovery = DomainDiscovery(
      directory: directory, list: domainList, initial: plan, resolver: resolver,
      interval: configuration.resolveInterval, logger: logger)
    let router = GatewayRouter(
      directory: directory,
      deadline: CallDeadline(defaultTimeout: configuration.defaultTimeout, maximumTimeout: configuration.maximumTimeout)
    )
    let board = HealthStatusBoard()
    let relayed = configuration.forwarding == .relay
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
    let understanding = UnderstandingIndex(directory: directory, schema: { reflectionIndex.schema() }, logger: logger)
    let services: [any RegistrableRPCService] = [
      GatewayExtensionService(router: router),
      GatewayService(
        router: router, layouts: configuration.layouts, understander: Understander(index: understanding)),
      HealthService(board: board), ReflectionService(index: reflectionIndex.index),
    ]
    let interceptors: [any ServerInterceptor] = [
      TracingServerInterceptor(), MetricsInterceptor(metrics: metrics), RequestIDInterceptor(),
      UnexpectedErrorInterceptor(logger: logger),
      AuthenticationInterceptor(verifier: verifier),
      MessageSizeInterceptor(limit: configuration.maxRequestMessageBytes),
    ]
    var parts: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: DirectoryService(directory: directory)),
      .init(service: DiscoveryService(discovery: discovery, logger: logger)),
      .init(service: KeySetRefresher(verifier: verifier, interval: configuration.authentication.refreshInterval)),
    ]
    if relayed {
      // The relay owns the public port; the gateway's own server answers behind it, in process.
      let local = LocalServerTransport()
      let server = GRPCServer(transport: local, services: services, interceptors: interceptors)
      // MCP's tool calls run the gateway's own Interact, in process, through the same interceptors.
      let inProcess = InProcessTransport()
      let mcpServer = GRPCServer(transport: inProcess.server, services: services, interceptors: interceptors)
      let mcpClient = GRPCClient(transport: inProcess.client)
      let gateway = Intentmesh_Gateway_V1_Gateway.Client(wrapping: mcpClient)
      let sessions = MCPSessions()
      let mcp = MCPEndpoint(
        verifier: verifier, tls: configuration.tls != nil,
        catalog: MCPToolCatalog(directory: directory, schema: { reflectionIndex.schema() }), sessions: sessions,
        schema: { reflectionIndex.schema() }, cors: configuration.cors, logger: logger
      ) { request, metadata in try await gateway.interact(request, metadata: metadata) }
      parts.append(.init(service: MCPToolListWatcher(sessions: sessions, generation: { directory.generation })))
      let web = (
        responder: try WebResponder.make(
          reflection: reflectionIndex, cors: configuration.cors, pages: WebPages(root: configuration.webRoot),
          devTokensFrom: configuration.devTokensFrom, mcp: mcp, logger: logger),
        requestTimeout: configuration.relayLimits.handshakeTimeout
      )
      let relayRouter = RelayRouter(
        directory: directory, deadline: router.deadline, local: local,
        maxRequestMessageBytes: configuration.maxRequestMessageBytes,
        upstreamTLS: try configuration.upstreamTLS.map { try $0.makeContext() }, web: web)
      let relay = RelayServer(
        host: configuration.host, port: configuration.port, metrics: RelayMetrics(metrics: metrics),
        limits: configuration.relayLimits, tls: try configuration.tls.map { try $0.makeContext() }, logger: logger
      ) { relayRouter }
      let host = configuration.host
      publicAddress = {
        let address = try await relay.listeningAddress
        return (address.ipAddress ?? host, address.port ?? 0)
      }
      // Stopped in reverse: the relay drains its calls before the server behind it stops.
      parts.append(.init(service: GRPCServerService(server: server, calls: configuration.callExecutor)))
      parts.append(.init(service: GRPCServerService(server: mcpServer, calls: configuration.callExecutor)))
      parts.append(.init(service: InProcessClientService(client: mcpClient)))
      parts.append(.init(service: relay))
    } else {
      let transport = ServiceTransport.http2(
        host: configuration.host, port: configuration.port,
        maxRequestMessageBytes: configuration.maxRequestMessageBytes, tls: configuration.tls)
      let server = GRPCServer(transport: transport, services: services, interceptors: interceptors)
      let host = configuration.host
      publicAddress = {
        guard let address = try await server.listeningAddress else {
          throw GatewayError.invalidArgument("the gateway's gRPC server stopped before it listened")
        }
        if let ipv4 = address.ipv4 { return (ipv4.host, ipv4.port) }
        if let ipv6 = address.ipv6 { return (ipv6.host, ipv6.port) }
        return (host, 0)
      }
      parts.append(.init(service: GRPCServerService(server: server, calls: configuration.callExecutor)))
    }
    let address = publicAddress
    parts.append(
      .init(
        service: ReadinessReporter(
          serviceName: "gateway", appName: "IntentMesh gateway", board: board, logger: logger,
          serviceNames: ["", "intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension"]
        ) {
          // SERVING only once the routing table holds every domain that answered.
          await directory.firstRoundCompleted()
          let (host, port) = try await address()
          return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }))
    if let metricsPort = configuration.metricsPort {
      parts.append(
        .init(
          service: MetricsHTTPServer(
            metrics: metrics, serviceName: "gateway", host: configuration.host, port: metricsPort, logger: logger)))
    }
    self.parts = parts
  }

  /// Serves until the group it runs in shuts down (gracefully: calls in flight finish), or until
  /// its task is cancelled.
  package func run() async throws {
    let group = ServiceGroup(configuration: .init(services: parts, logger: logger))
    try await group.run()
  }

  /// The public port's address, once it listens: the relay's, or the gRPC server's without it.
  var listeningAddress: (host: String, port: Int) {
    get async throws { try await publicAddress() }
  }
}
