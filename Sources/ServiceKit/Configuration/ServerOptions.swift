package import ArgumentParser
package import Logging

/// The flags every IntentMesh server shares — the domain services and the gateway: where it
/// listens, its logs, metrics and traces, TLS, bearer tokens, and the container health probe. Each
/// executable's options hold one `@OptionGroup` of these beside their own.
package struct ServerOptions: ParsableArguments {
  @Option(help: "Address to listen on (env INTENTMESH_HOST; default 127.0.0.1).")
  package var host: String?

  @Option(help: "Port to listen on; 0 picks a free one (env INTENTMESH_PORT; each executable has its default).")
  package var port: Int?

  @Option(help: "trace, debug, info, notice, warning, error or critical (env INTENTMESH_LOG_LEVEL; default info).")
  package var logLevel: String?

  @Option(
    help:
      "Port for Prometheus metrics over HTTP at /metrics (env INTENTMESH_METRICS_PORT; default the gRPC port + 1000, or a free one when the gRPC port is 0; --metrics-port=-1 serves none)."
  )
  package var metricsPort: Int?

  @Option(
    help:
      "Send traces (OTLP over gRPC) to this collector, e.g. http://127.0.0.1:4317 (env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; default none: no spans are made). A call's W3C traceparent is continued, or a trace started. Other OTEL_* variables (OTEL_TRACES_SAMPLER, …) apply."
  )
  package var otlpEndpoint: String?

  @Option(
    help: """
      Where calls run: event-loop (on their connection's event loop, no thread hop; one connection's calls \
      share one core) or pool (Swift's shared threads) (env INTENTMESH_CALL_EXECUTOR; default event-loop in a \
      domain service, pool in the gateway, whose web side reaches its gRPC server over one connection).
      """
  )
  package var callExecutor: String?

  @Flag(
    help:
      "Ask the server on this machine at the configured port for its health (grpc.health.v1) and exit: 0 SERVING, 1 otherwise. For container health checks."
  )
  package var healthCheck = false

  @OptionGroup(title: "TLS on the listening port (plain h2c without it)")
  package var tls: TLSOptions

  @OptionGroup(title: "Bearer tokens (every call but health checks and discovery carries one)")
  package var authentication: AuthenticationOptions

  package init() {}

  /// What these flags and `environment` say, for a server whose port is `defaultPort` and whose
  /// calls run on `defaultCallExecutor` unless told.
  package func settings(
    defaultPort: Int, defaultCallExecutor: CallExecutor = .eventLoop, environment: [String: String]
  ) throws -> ServerSettings {
    let lookup = OptionLookup(environment)
    let levelText = lookup.string(logLevel, "INTENTMESH_LOG_LEVEL") ?? "info"
    guard let level = Logger.Level(rawValue: levelText) else {
      throw ValidationError("log level \(levelText) is not one of trace, debug, info, notice, warning, error, critical")
    }
    let calls = lookup.string(callExecutor, "INTENTMESH_CALL_EXECUTOR") ?? defaultCallExecutor.rawValue
    guard let callExecutor = CallExecutor(rawValue: calls) else {
      throw ValidationError(
        "call executor \(calls) is not one of \(CallExecutor.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    let port = try lookup.integer(self.port, "INTENTMESH_PORT", "port", in: 0...65535) ?? defaultPort
    let metrics =
      try lookup.integer(metricsPort, "INTENTMESH_METRICS_PORT", "metrics port", in: -1...65535)
      ?? (port == 0 ? 0 : port + 1000)
    return ServerSettings(
      host: lookup.string(host, "INTENTMESH_HOST") ?? "127.0.0.1",
      port: port,
      metricsPort: metrics < 0 ? nil : metrics,
      logLevel: level,
      otlpEndpoint: TraceExport.endpoint(flag: otlpEndpoint, environment: environment),
      callExecutor: callExecutor,
      tls: try tls.serverTLS(environment: environment),
      // A health probe checks no token: it needs none of the keys.
      authentication: healthCheck
        ? try? authentication.configuration(environment: environment)
        : try authentication.configuration(environment: environment))
  }
}

/// What `ServerOptions` resolved to.
package struct ServerSettings: Sendable {
  package var host: String
  package var port: Int
  /// nil: no metrics endpoint.
  package var metricsPort: Int?
  package var logLevel: Logger.Level
  package var otlpEndpoint: String?
  /// Where calls run.
  package var callExecutor: CallExecutor
  package var tls: ServerTLS?
  /// nil only for a health probe whose token settings are missing (it checks none).
  package var authentication: AuthenticationConfiguration?
}
