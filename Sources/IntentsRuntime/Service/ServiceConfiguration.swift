internal import IntentsKit
internal import SwiftProtobuf
package import Foundation
package import Logging
package import ServiceKit

/// How a domain service runs. Defaults suit one machine; every value can come from the environment
/// (`INTENTMESH_*`) or a flag (see `ServiceOptions`), read in one place and injected everywhere else.
package struct ServiceConfiguration: Sendable {
  /// The address to listen on; 127.0.0.1 by default, 0.0.0.0 in containers.
  package var host: String
  /// The port; 0 picks a free one (the chosen port is printed).
  package var port: Int
  /// Where state lives: a SQLite file, ":memory:", or a postgres:// URL (see `StoreLocation`).
  package var database: StoreLocation
  /// The port Prometheus metrics are served on over HTTP; 0 picks a free one, nil serves none.
  package var metricsPort: Int?
  /// The folder with Info.plist and AppIntentVocabulary.plist; the executable's bundled copy by default.
  package var manifestDirectory: URL?
  package var logLevel: Logger.Level
  /// The largest request message accepted; larger ones get RESOURCE_EXHAUSTED.
  package var maxRequestMessageBytes: Int
  /// How long a connection may go without a call before the service sends GOAWAY and closes it.
  package var idleTimeout: Duration
  /// Where calls run: on their connection's event loop (the default) or Swift's shared threads.
  package var callExecutor: CallExecutor
  /// TLS on the service's port (mutual when it names a client CA); nil: plain h2c.
  package var tls: ServerTLS?
  /// The OpenTelemetry collector traces are sent to; nil: no spans are made.
  package var otlpEndpoint: String?
  /// How bearer tokens are checked; a service does not start without it.
  package var authentication: AuthenticationConfiguration?

  package init(
    host: String = "127.0.0.1",
    port: Int,
    database: StoreLocation,
    metricsPort: Int? = nil,
    manifestDirectory: URL? = nil,
    logLevel: Logger.Level = .info,
    maxRequestMessageBytes: Int = 4 * 1024 * 1024,
    idleTimeout: Duration = .seconds(300),
    callExecutor: CallExecutor = .eventLoop,
    otlpEndpoint: String? = nil,
    tls: ServerTLS? = nil,
    authentication: AuthenticationConfiguration? = nil
  ) {
    self.idleTimeout = idleTimeout
    self.callExecutor = callExecutor
    self.otlpEndpoint = otlpEndpoint
    self.authentication = authentication
    self.tls = tls
    self.host = host
    self.port = port
    self.database = database
    self.metricsPort = metricsPort
    self.manifestDirectory = manifestDirectory
    self.logLevel = logLevel
    self.maxRequestMessageBytes = maxRequestMessageBytes
  }
}
