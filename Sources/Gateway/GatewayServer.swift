internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import IntentsKit
internal import Logging
internal import ServiceLifecycle
internal import UnixSignals

/// The gateway executable, assembled: the directory of domains, the pass-through and gateway
/// services, health and request ids on one HTTP/2 port, graceful shutdown on SIGTERM / SIGINT.
package struct GatewayServer: Sendable {
  package let configuration: GatewayConfiguration

  package init(configuration: GatewayConfiguration) {
    self.configuration = configuration
  }

  package func run() async throws {
    var logger = Logger(label: "gateway")
    logger.logLevel = configuration.logLevel
    let directory = try DomainDirectory(
      endpoints: configuration.domains, refreshInterval: configuration.refreshInterval, logger: logger)
    let router = GatewayRouter(
      directory: directory,
      deadline: CallDeadline(defaultTimeout: configuration.defaultTimeout, maximumTimeout: configuration.maximumTimeout)
    )
    let board = HealthStatusBoard()
    let transport = ServiceTransport.http2(
      host: configuration.host, port: configuration.port, maxRequestMessageBytes: configuration.maxRequestMessageBytes)
    let metrics = RPCMetrics()
    let reflection = try ReflectionService(services: [
      "intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension", "grpc.health.v1.Health",
    ])
    let server = GRPCServer(
      transport: transport,
      services: [
        GatewayExtensionService(router: router), GatewayService(router: router), HealthService(board: board),
        reflection,
      ],
      interceptors: [
        MetricsInterceptor(metrics: metrics), RequestIDInterceptor(),
        MessageSizeInterceptor(limit: configuration.maxRequestMessageBytes),
      ]
    )
    let readiness = ReadinessReporter(
      serviceName: "gateway", appName: "IntentMesh gateway", board: board, logger: logger,
      serviceNames: ["", "intentmesh.gateway.v1.Gateway", "intentmesh.v1.IntentsExtension"]
    ) {
      // SERVING only once the routing table holds every domain that answered.
      await directory.firstRoundCompleted()
      return try await server.listeningEndpoint
    }
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: DirectoryService(directory: directory)),
      .init(service: GRPCServerService(server: server)),
      .init(service: readiness),
    ]
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

/// Runs the directory until graceful shutdown; it stops after the server has drained.
struct DirectoryService: Service {
  let directory: DomainDirectory

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await directory.run()
    }
  }
}
