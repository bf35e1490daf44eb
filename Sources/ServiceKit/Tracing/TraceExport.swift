package import Logging
internal import OTel
package import ServiceLifecycle
internal import Synchronization
internal import Tracing

/// Whether this process makes spans, and where they go: OTLP over gRPC to a collector when an
/// endpoint is configured (`--otlp-endpoint`, or the OpenTelemetry variables
/// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT), nothing otherwise — no tracer,
/// no span, no cost beyond one check per call. With it, log lines written inside a call carry its
/// `trace_id` and `span_id`.
package enum TraceExport {
  private static let enabled = Atomic(false)

  /// Whether spans are made (a tracer was bootstrapped).
  package static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

  /// Whether the call this task serves is sampled (its server span records): the spans inside a
  /// call the sampler dropped are not made at all.
  @TaskLocal static var callIsRecorded = true

  /// Whether a span inside the current call is worth making.
  package static var recordsInsideCall: Bool { isEnabled && callIsRecorded }

  /// The collector endpoint the environment names, if any (the traces one wins).
  package static func endpoint(flag: String?, environment: [String: String]) -> String? {
    [flag, environment["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], environment["OTEL_EXPORTER_OTLP_ENDPOINT"]]
      .compactMap { $0 }.first { !$0.isEmpty }
  }

  /// Bootstraps the process's tracer and log correlation for `serviceName` when `endpoint` is set;
  /// returns the service that exports the spans (run it in the process's service group), or nil.
  /// Call once, before any server starts.
  package static func bootstrap(serviceName: String, endpoint: String?, logLevel: Logger.Level) throws -> (any Service)?
  {
    guard let endpoint else { return nil }
    var configuration = OTel.Configuration.default
    configuration.serviceName = serviceName
    configuration.logs.enabled = false
    configuration.metrics.enabled = false
    configuration.traces.exporter = .otlp
    configuration.traces.otlpExporter.protocol = .grpc
    configuration.traces.otlpExporter.endpoint = endpoint
    configuration.diagnosticLogLevel = .warning
    let backend = try OTel.makeTracingBackend(configuration: configuration)
    InstrumentationSystem.bootstrap(backend.factory)
    LoggingSystem.bootstrap(
      { label, provider in
        var handler = StreamLogHandler.standardError(label: label, metadataProvider: provider)
        handler.logLevel = logLevel
        return handler
      }, metadataProvider: OTel.makeLoggingMetadataProvider())
    enabled.store(true, ordering: .relaxed)
    return backend.service
  }
}
