package import IntentsKit
internal import IntentMeshProtos
internal import SwiftProtobuf
package import ArgumentParser
internal import Foundation
internal import Logging
package import ServiceKit

/// The command line of every domain service. A flag wins over its environment variable, which wins
/// over the default.
package struct ServiceOptions: ParsableArguments {
  @Option(help: "Address to listen on (env INTENTMESH_HOST; default 127.0.0.1).")
  package var host: String?

  @Option(help: "Port to listen on; 0 picks a free one (env INTENTMESH_PORT).")
  package var port: Int?

  @Option(
    help:
      "Where state lives: a SQLite file, :memory:, or postgres://user:password@host:port/database[?schema=NAME&sslmode=disable] (env INTENTMESH_DATABASE)."
  )
  package var database: String?

  @Option(
    help:
      "Port for Prometheus metrics over HTTP at /metrics (env INTENTMESH_METRICS_PORT; default the gRPC port + 1000, or a free one when the gRPC port is 0; --metrics-port=-1 serves none)."
  )
  package var metricsPort: Int?

  @Option(help: "Folder holding Info.plist and AppIntentVocabulary.plist (env INTENTMESH_MANIFEST_DIR).")
  package var manifest: String?

  @Option(help: "trace, debug, info, notice, warning, error or critical (env INTENTMESH_LOG_LEVEL).")
  package var logLevel: String?

  @Option(help: "Largest request message in bytes (env INTENTMESH_MAX_MESSAGE_BYTES; default 4194304).")
  package var maxMessageBytes: Int?

  @Option(
    help:
      "Seconds a connection may go without a call before the service closes it with GOAWAY (env INTENTMESH_IDLE_TIMEOUT_SECONDS; default 300, as the gateway's relay)."
  )
  package var idleTimeoutSeconds: Int?

  @Option(
    help:
      "Send traces (OTLP over gRPC) to this collector, e.g. http://127.0.0.1:4317 (env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; default none: no spans are made). Other OTEL_* variables (OTEL_TRACES_SAMPLER, OTEL_BSP_SCHEDULE_DELAY, …) apply."
  )
  package var otlpEndpoint: String?

  @Flag(
    help:
      "Ask the service on this machine at the configured port for its health (grpc.health.v1) and exit: 0 SERVING, 1 otherwise. For container health checks."
  )
  package var healthCheck = false

  @OptionGroup(title: "TLS (plain h2c without it)")
  package var tls: TLSOptions

  @OptionGroup(title: "Bearer tokens (every call but Describe and health carries one)")
  package var authentication: AuthenticationOptions

  package init() {}

  /// The configuration these options and `environment` describe.
  package func configuration(
    defaultPort: Int,
    defaultDatabase: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> ServiceConfiguration {
    func value(_ flag: String?, _ key: String) -> String? { flag ?? environment[key].flatMap { $0.isEmpty ? nil : $0 } }
    func integer(_ flag: Int?, _ key: String) throws -> Int? {
      if let flag { return flag }
      guard let text = value(nil, key) else { return nil }
      guard let number = Int(text) else { throw ValidationError("\(key)=\(text) is not a number") }
      return number
    }
    let levelText = value(logLevel, "INTENTMESH_LOG_LEVEL") ?? "info"
    guard let level = Logger.Level(rawValue: levelText) else {
      throw ValidationError("log level \(levelText) is not one of trace, debug, info, notice, warning, error, critical")
    }
    let port = try integer(self.port, "INTENTMESH_PORT") ?? defaultPort
    guard (0...65535).contains(port) else { throw ValidationError("port \(port) is out of range") }
    let maxBytes = try integer(maxMessageBytes, "INTENTMESH_MAX_MESSAGE_BYTES") ?? 4 * 1024 * 1024
    guard maxBytes > 0 else { throw ValidationError("max message bytes must be positive") }
    let idle = try integer(idleTimeoutSeconds, "INTENTMESH_IDLE_TIMEOUT_SECONDS") ?? 300
    guard idle > 0 else { throw ValidationError("the idle timeout must be positive") }
    let metrics = try integer(metricsPort, "INTENTMESH_METRICS_PORT") ?? (port == 0 ? 0 : port + 1000)
    guard (-1...65535).contains(metrics) else { throw ValidationError("metrics port \(metrics) is out of range") }
    let databaseText = value(database, "INTENTMESH_DATABASE") ?? defaultDatabase
    let location: StoreLocation
    do { location = try StoreLocation(parsing: databaseText) } catch {
      throw ValidationError("database: \(error)")
    }
    return ServiceConfiguration(
      host: value(host, "INTENTMESH_HOST") ?? "127.0.0.1",
      port: port,
      database: location,
      metricsPort: metrics < 0 ? nil : metrics,
      manifestDirectory: value(manifest, "INTENTMESH_MANIFEST_DIR").map { URL(fileURLWithPath: $0) },
      logLevel: level,
      maxRequestMessageBytes: maxBytes,
      idleTimeout: .seconds(idle),
      otlpEndpoint: TraceExport.endpoint(flag: otlpEndpoint, environment: environment),
      tls: try tls.serverTLS(environment: environment),
      // A health probe checks no token: it needs none of the keys.
      authentication: healthCheck
        ? try? authentication.configuration(environment: environment)
        : try authentication.configuration(environment: environment)
    )
  }
}
