internal import IntentsKit
internal import IntentMeshProtos
internal import SwiftProtobuf
package import ArgumentParser
internal import Foundation
internal import Logging
package import ServiceKit

/// The command line of every domain service: the flags every server shares (`ServerOptions`) and a
/// domain's own. A flag wins over its environment variable, which wins over the default.
package struct ServiceOptions: ParsableArguments {
  @OptionGroup(title: "The server")
  package var server: ServerOptions

  @Option(
    help:
      "Where state lives: a SQLite file, :memory:, or postgres://user:password@host:port/database[?schema=NAME&sslmode=disable] (env INTENTMESH_DATABASE)."
  )
  package var database: String?

  @Option(help: "Folder holding Info.plist and AppIntentVocabulary.plist (env INTENTMESH_MANIFEST_DIR).")
  package var manifest: String?

  @Option(help: "Largest request message in bytes (env INTENTMESH_MAX_MESSAGE_BYTES; default 4194304).")
  package var maxMessageBytes: Int?

  @Option(
    help:
      "Seconds a connection may go without a call before the service closes it with GOAWAY (env INTENTMESH_IDLE_TIMEOUT_SECONDS; default 300, as the gateway's relay)."
  )
  package var idleTimeoutSeconds: Int?

  package init() {}

  /// Whether this run is only a container health probe (`--health-check`).
  package var healthCheck: Bool { server.healthCheck }

  /// The configuration these options and `environment` describe.
  package func configuration(
    defaultPort: Int,
    defaultDatabase: String,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> ServiceConfiguration {
    let lookup = OptionLookup(environment)
    let server = try server.settings(defaultPort: defaultPort, environment: environment)
    let maxBytes =
      try lookup.integer(maxMessageBytes, "INTENTMESH_MAX_MESSAGE_BYTES", "max message bytes", in: 1...Int.max)
      ?? 4 * 1024 * 1024
    let idle =
      try lookup.integer(idleTimeoutSeconds, "INTENTMESH_IDLE_TIMEOUT_SECONDS", "idle timeout", in: 1...Int.max) ?? 300
    let databaseText = lookup.string(database, "INTENTMESH_DATABASE") ?? defaultDatabase
    let location: StoreLocation
    do { location = try StoreLocation(parsing: databaseText) } catch {
      throw ValidationError("database: \(error)")
    }
    return ServiceConfiguration(
      host: server.host,
      port: server.port,
      database: location,
      metricsPort: server.metricsPort,
      manifestDirectory: lookup.string(manifest, "INTENTMESH_MANIFEST_DIR").map { URL(fileURLWithPath: $0) },
      logLevel: server.logLevel,
      maxRequestMessageBytes: maxBytes,
      idleTimeout: .seconds(idle),
      callExecutor: server.callExecutor,
      otlpEndpoint: server.otlpEndpoint,
      tls: server.tls,
      authentication: server.authentication
    )
  }
}
