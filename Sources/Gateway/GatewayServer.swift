internal import Logging
internal import NIOCore
internal import ServiceLifecycle
internal import ServiceKit
internal import UnixSignals

/// The gateway executable: tracing set up for the process, then the gateway (`GatewayApplication`)
/// run until SIGTERM or SIGINT, which shut it down gracefully.
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
    let application = try await GatewayApplication(configuration: configuration, logger: logger)
    var services: [ServiceGroupConfiguration.ServiceConfiguration] = [.init(service: application)]
    // First, so that it stops last: the spans of the last calls are still sent.
    if let traceExport { services.insert(.init(service: traceExport), at: 0) }
    let group = ServiceGroup(
      configuration: .init(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    try await group.run()
    logger.info("stopped cleanly")
  }
}
