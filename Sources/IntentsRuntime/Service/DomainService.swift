package import IntentsKit
internal import SwiftProtobuf
package import Foundation
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import IntentMeshProtos
internal import Logging
internal import ServiceLifecycle
internal import UnixSignals
internal import ServiceKit

/// A domain's executable, assembled: store, manifest, the IntentsExtension and health services over
/// HTTP/2, request ids, and graceful shutdown on SIGTERM / SIGINT.
package struct DomainService: Sendable {
  package let definition: DomainDefinition
  package let configuration: ServiceConfiguration
  /// Where the manifest is read when the configuration names no folder.
  package let bundledManifest: URL?
  package let now: @Sendable () -> Date

  package init(
    definition: DomainDefinition,
    configuration: ServiceConfiguration,
    bundledManifest: URL?,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.definition = definition
    self.configuration = configuration
    self.bundledManifest = bundledManifest
    self.now = now
  }

  /// Serves until SIGTERM or SIGINT, then drains calls in flight and closes the store. Off the
  /// caller's actor (`@concurrent`): a service's `main.swift` awaits it from the main actor, and
  /// opening the store, migrating it and closing it run statements inline.
  @concurrent
  package func run() async throws {
    // Before the first logger: with tracing on, log lines carry the trace they belong to.
    let traceExport = try TraceExport.bootstrap(
      serviceName: definition.serviceName, endpoint: configuration.otlpEndpoint, logLevel: configuration.logLevel)
    var logger = Logger(label: definition.serviceName)
    logger.logLevel = configuration.logLevel
    let store = try await StoreOpener.open(
      configuration.database, defaultSchema: StoreOpener.defaultSchema(forService: definition.serviceName),
      logger: logger)
    logger.info("store: \(configuration.database.redacted)")
    do {
      try await serve(store: store, traceExport: traceExport, logger: logger)
    } catch {
      try? await store.close()
      throw error
    }
    try await store.close()
    logger.info("stopped cleanly")
  }

  private func serve(store: any IntentStore, traceExport: (any Service)?, logger: Logger) async throws {
    guard let manifestDirectory = configuration.manifestDirectory ?? bundledManifest else {
      throw ManifestError.unreadable(path: "(none)", underlying: "no manifest folder: pass --manifest")
    }
    let prepared = try await PreparedDomain.prepare(
      definition: definition, store: store, manifestDirectory: manifestDirectory, now: now, logger: logger)
    let board = prepared.board
    let manifest = prepared.manifest
    guard let authentication = configuration.authentication else {
      throw KeySetError.unreadable("no JWKS configured: pass --jwks (env INTENTMESH_JWKS)")
    }
    let verifier = try await authentication.makeVerifier(logger: logger)
    if let warning = PlaintextWarning.message(host: configuration.host, tls: configuration.tls != nil) {
      logger.warning("\(warning)")
    }
    let transport = ServiceTransport.http2(
      host: configuration.host, port: configuration.port, maxRequestMessageBytes: configuration.maxRequestMessageBytes,
      tls: configuration.tls, idleTimeout: configuration.idleTimeout, enforcesDeadlines: true)
    let metrics = RPCMetrics()
    if let store = store as? SQLiteStore { GroupCommitMetrics.export(store, to: metrics) }
    let reflection = try ReflectionService(
      services: ["intentmesh.v1.IntentsExtension", "grpc.health.v1.Health"] + definition.appServiceNames)
    let server = GRPCServer(
      transport: transport,
      services: prepared.services + [reflection],
      interceptors: [
        TracingServerInterceptor(), MetricsInterceptor(metrics: metrics), RequestIDInterceptor(),
        UnexpectedErrorInterceptor(logger: logger),
        AuthenticationInterceptor(verifier: verifier),
        MessageSizeInterceptor(limit: configuration.maxRequestMessageBytes),
      ]
    )
    let readiness = ReadinessReporter(
      serviceName: definition.serviceName, appName: manifest.proto.appName, board: board, logger: logger
    ) { try await server.listeningEndpoint }
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: GRPCServerService(server: server, calls: configuration.callExecutor)), .init(service: readiness),
      .init(service: KeySetRefresher(verifier: verifier, interval: authentication.refreshInterval)),
    ]
    if let metricsPort = configuration.metricsPort {
      services.append(
        .init(
          service: MetricsHTTPServer(
            metrics: metrics, serviceName: definition.serviceName, host: configuration.host, port: metricsPort,
            logger: logger)))
    }
    // First, so that it stops last: the spans of the last calls are still sent.
    if let traceExport { services.insert(.init(service: traceExport), at: 0) }
    if let maintenance = definition.maintenance {
      services.append(
        .init(service: MaintenanceService(maintenance: maintenance, store: store, now: now, logger: logger)))
    }
    let group = ServiceGroup(
      configuration: .init(
        services: services,
        gracefulShutdownSignals: [.sigterm, .sigint],
        logger: logger
      ))
    try await group.run()
  }
}
