internal import IntentMeshProtos
internal import SwiftProtobuf
#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import Logging
internal import ServiceKit

/// How the gateway runs: where it listens, which domains it routes to, its deadlines.
package struct GatewayConfiguration: Sendable {
  var host: String
  var port: Int
  /// The port Prometheus metrics are served on over HTTP; 0 picks a free one, nil serves none.
  var metricsPort: Int?
  /// How pass-through calls reach their domain.
  var forwarding: Forwarding
  /// The domains named on the command line or in INTENTMESH_DOMAINS (names are resolved to every
  /// address, each a replica).
  var domains: [DomainEndpoint]
  /// The config file whose domains are added to `domains`, read again on SIGHUP and when it changes.
  var configFile: String?
  /// How often names are resolved again and the config file checked for changes.
  var resolveInterval: Duration
  /// A hosts-format file names are looked up in before the system resolver; nil: the system's only.
  var hostsFile: String?
  /// The OpenTelemetry collector traces are sent to; nil: no spans are made.
  var otlpEndpoint: String?
  /// How often every domain is described again (also on each health change).
  var refreshInterval: Duration
  /// The deadline of a domain call when the caller sets none.
  var defaultTimeout: Duration
  /// The longest deadline a domain call gets, whatever the caller asks.
  var maximumTimeout: Duration
  var logLevel: Logger.Level
  var maxRequestMessageBytes: Int
  /// Event-loop threads serving connections; nil: one per CPU core.
  var eventLoops: Int?
  /// Where the gateway's own gRPC server runs its calls (`--call-executor`): Swift's shared threads
  /// by default; `event-loop` keeps each call on the relay loop of the client's connection.
  var callExecutor: CallExecutor
  /// What any one client of the public port may make the relay hold or do.
  var relayLimits: RelayLimits
  /// How bearer tokens are checked on the gateway's own RPCs (the relay forwards them to the domain).
  var authentication: AuthenticationConfiguration
  /// TLS on the public port (the relay's, or the gRPC server's without the relay); nil: h2c.
  var tls: ServerTLS?
  /// TLS towards the domains (mutual when it has a client certificate); nil: h2c.
  var upstreamTLS: ClientTLS?
  /// Web origins whose pages may call the Connect and gRPC-Web API.
  var cors: CORSPolicy
  /// A folder whose files the web app is served from instead of the embedded ones.
  var webRoot: String?
  /// The local identity folder whose key signs development tokens (`POST /dev/token`); loopback only.
  var devTokensFrom: String?
  /// How layouts are built from the domains' view answers (concurrently, unless a test says not).
  var layouts = LayoutBuilder()

  init(
    host: String = "127.0.0.1", port: Int = 50060, metricsPort: Int? = nil, forwarding: Forwarding = .relay,
    domains: [DomainEndpoint], configFile: String? = nil, resolveInterval: Duration = .seconds(5),
    hostsFile: String? = nil, otlpEndpoint: String? = nil,
    refreshInterval: Duration = .seconds(10),
    defaultTimeout: Duration = .seconds(10), maximumTimeout: Duration = .seconds(60), logLevel: Logger.Level = .info,
    maxRequestMessageBytes: Int = 4 * 1024 * 1024, eventLoops: Int? = nil,
    callExecutor: CallExecutor = .pool, relayLimits: RelayLimits = .defaults,
    authentication: AuthenticationConfiguration, tls: ServerTLS? = nil, upstreamTLS: ClientTLS? = nil,
    cors: CORSPolicy = CORSPolicy(), webRoot: String? = nil, devTokensFrom: String? = nil
  ) {
    self.cors = cors
    self.webRoot = webRoot
    self.devTokensFrom = devTokensFrom
    self.tls = tls
    self.upstreamTLS = upstreamTLS
    self.authentication = authentication
    self.host = host
    self.port = port
    self.metricsPort = metricsPort
    self.forwarding = forwarding
    self.domains = domains
    self.configFile = configFile
    self.resolveInterval = resolveInterval
    self.hostsFile = hostsFile
    self.otlpEndpoint = otlpEndpoint
    self.refreshInterval = refreshInterval
    self.defaultTimeout = defaultTimeout
    self.maximumTimeout = maximumTimeout
    self.logLevel = logLevel
    self.maxRequestMessageBytes = maxRequestMessageBytes
    self.eventLoops = eventLoops
    self.callExecutor = callExecutor
    self.relayLimits = relayLimits
  }

  /// How pass-through calls reach their domain.
  enum Forwarding: String, Sendable {
    /// As HTTP/2 streams, relayed frame by frame (`RelayServer`); the gateway's gRPC server answers
    /// its own RPCs behind the relay, in process (`LocalServerTransport`).
    case relay
    /// Through the gateway's gRPC server, which decodes each call and makes it again as a client.
    case grpc
  }

  /// The file form of the domain list: `{"domains": ["127.0.0.1:50061", …]}`.
  struct File: Decodable {
    var domains: [String]
  }

  /// Reads the domains of a config file.
  static func domains(fromFile path: String) throws -> [DomainEndpoint] {
    try domains(fromJSON: Array(Data(contentsOf: URL(fileURLWithPath: path))), path: path)
  }

  /// The domains of a config file's content.
  static func domains(fromJSON content: [UInt8], path: String) throws -> [DomainEndpoint] {
    let file: File
    do {
      file = try JSONDecoder().decode(File.self, from: Data(content))
    } catch {
      throw GatewayError.invalidArgument("\(path): not {\"domains\": [\"host:port\", …]}: \(error)")
    }
    return try file.domains.map { text in
      guard let endpoint = DomainEndpoint(text) else {
        throw GatewayError.invalidArgument("\(path): \"\(text)\" is not host:port")
      }
      return endpoint
    }
  }

  /// The domain list this configuration names.
  var domainList: DomainList { DomainList(fixed: domains, file: configFile) }

  /// The resolver for the names in the domain list.
  var resolver: any AddressResolver {
    hostsFile.map { HostsFileResolver(path: $0) } ?? SystemAddressResolver()
  }
}
