internal import IntentMeshProtos
internal import SwiftProtobuf
package import ArgumentParser
#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import Logging
package import ServiceKit
package import IntentMeshCore

/// The gateway's command line; a flag wins over its environment variable, which wins over the default.
package struct GatewayOptions: ParsableArguments {
  @Option(help: "Address to listen on (env INTENTMESH_HOST; default 127.0.0.1).")
  package var host: String?

  @Option(help: "Port to listen on; 0 picks a free one (env INTENTMESH_PORT; default 50060).")
  package var port: Int?

  @Option(
    name: .customLong("domain"),
    help:
      "A domain's host:port; repeat for each (env INTENTMESH_DOMAINS, comma-separated). A name stands for every address it resolves to (A and AAAA), each a replica: a Kubernetes headless Service's name finds every ready pod."
  )
  package var domains: [String] = []

  @Option(
    help:
      "A JSON file {\"domains\": [\"host:port\", …]} of more domains, read again on SIGHUP and when it changes (env INTENTMESH_GATEWAY_CONFIG)."
  )
  package var config: String?

  @Option(
    help:
      "Seconds between lookups of the domains' names (and checks of the config file); also looked up when a replica's connection fails (env INTENTMESH_RESOLVE_SECONDS; default 5)."
  )
  package var resolveSeconds: Double?

  @Option(
    help:
      "A hosts-format file (address name …) the domains' names are looked up in first, read at every lookup; names it does not list go to the system resolver (env INTENTMESH_HOSTS_FILE)."
  )
  package var hostsFile: String?

  @Option(help: "Seconds between Describe rounds (env INTENTMESH_REFRESH_SECONDS; default 10).")
  package var refreshSeconds: Double?

  @Option(help: "Deadline in seconds of a domain call when the caller sets none (default 10).")
  package var defaultTimeoutSeconds: Double?

  @Option(help: "Longest deadline in seconds a domain call gets (default 60).")
  package var maximumTimeoutSeconds: Double?

  @Option(help: "trace, debug, info, notice, warning, error or critical (env INTENTMESH_LOG_LEVEL).")
  package var logLevel: String?

  @Flag(
    help:
      "Ask the gateway on this machine at the configured port for its health (grpc.health.v1) and exit: 0 SERVING, 1 otherwise. For container health checks."
  )
  package var healthCheck = false

  @Option(
    help:
      "Port for Prometheus metrics over HTTP at /metrics (env INTENTMESH_METRICS_PORT; default the gRPC port + 1000, or a free one when the gRPC port is 0; --metrics-port=-1 serves none)."
  )
  package var metricsPort: Int?

  @Option(
    help:
      "relay: pass-through calls go to their domain as HTTP/2 streams, undecoded (default); grpc: the gateway's gRPC server forwards every call itself (env INTENTMESH_FORWARDING)."
  )
  package var forwarding: String?

  @Option(
    name: .customLong("cors-origin"),
    help:
      "A web origin (https://app.example.com, or * for any) whose pages may call the gateway's Connect and gRPC-Web API; repeatable (env INTENTMESH_CORS_ORIGINS, comma-separated). The gateway's own page needs none."
  )
  package var corsOrigins: [String] = []

  @Option(help: "Serve the web app from this folder instead of the copy built in (env INTENTMESH_WEB_ROOT).")
  package var webRoot: String?

  @Option(
    help:
      "Development only: sign tokens for any user at POST /dev/token (the web app's \"Sign in as\") with the local identity in this folder, as `intentmesh up` does; allowed only on a loopback address (env INTENTMESH_DEV_TOKENS_FROM)."
  )
  package var devTokensFrom: String?

  @Option(
    help:
      "Event-loop threads serving connections (env INTENTMESH_EVENT_LOOPS; default one per CPU core the process may use)."
  )
  package var eventLoops: Int?

  @Option(
    help:
      "Send traces (OTLP over gRPC) to this collector, e.g. http://127.0.0.1:4317 (env OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT; default none: no spans are made). A call's W3C traceparent is continued, or a trace started, and passed on to the domain."
  )
  package var otlpEndpoint: String?

  @OptionGroup(title: "Limits of the public port (what any one client may make the gateway hold or do)")
  package var relayLimits: RelayLimitOptions

  @OptionGroup(title: "TLS on the public port (plain h2c without it)")
  package var tls: TLSOptions

  @OptionGroup(title: "TLS towards the domains")
  package var upstreamTLS: UpstreamTLSOptions

  @OptionGroup(title: "Bearer tokens (every call but health and ListRoutes carries one)")
  package var authentication: AuthenticationOptions

  package init() {}

  package func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> GatewayConfiguration
  {
    func value(_ flag: String?, _ key: String) -> String? { flag ?? environment[key].flatMap { $0.isEmpty ? nil : $0 } }
    var texts = domains
    if texts.isEmpty, let list = environment["INTENTMESH_DOMAINS"], !list.isEmpty {
      texts = list.split(separator: ",").map(String.init)
    }
    let endpoints = try texts.map { text in
      guard let endpoint = DomainEndpoint(text) else { throw ValidationError("\"\(text)\" is not host:port") }
      return endpoint
    }
    let configFile = value(config, "INTENTMESH_GATEWAY_CONFIG")
    let fromFile = try configFile.map { try GatewayConfiguration.domains(fromFile: $0) } ?? []
    guard !(endpoints + fromFile).isEmpty else {
      throw ValidationError("name at least one domain: --domain host:port")
    }
    let resolveText = value(resolveSeconds.map { "\($0)" }, "INTENTMESH_RESOLVE_SECONDS") ?? "5"
    guard let resolve = Double(resolveText), resolve >= 0.05, resolve <= 86_400 else {
      throw ValidationError("resolve seconds \(resolveText) is not 0.05 to 86400")
    }
    let levelText = value(logLevel, "INTENTMESH_LOG_LEVEL") ?? "info"
    guard let level = Logger.Level(rawValue: levelText) else { throw ValidationError("unknown log level \(levelText)") }
    let port =
      try value(port.map(String.init), "INTENTMESH_PORT").map { text in
        guard let number = Int(text), (0...65535).contains(number) else { throw ValidationError("bad port \(text)") }
        return number
      } ?? 50060
    let metrics =
      try value(metricsPort.map(String.init), "INTENTMESH_METRICS_PORT").map { text in
        guard let number = Int(text), (-1...65535).contains(number) else {
          throw ValidationError("bad metrics port \(text)")
        }
        return number
      } ?? (port == 0 ? 0 : port + 1000)
    let forwardingText = value(forwarding, "INTENTMESH_FORWARDING") ?? "relay"
    guard let forwardingMode = GatewayConfiguration.Forwarding(rawValue: forwardingText) else {
      throw ValidationError("forwarding \(forwardingText) is not relay or grpc")
    }
    let loops =
      try value(eventLoops.map(String.init), "INTENTMESH_EVENT_LOOPS").map { text in
        guard let number = Int(text), (1...256).contains(number) else {
          throw ValidationError("event loops \(text) is not 1 to 256")
        }
        return number
      }
    let origins =
      corsOrigins.isEmpty
      ? (environment["INTENTMESH_CORS_ORIGINS"] ?? "").split(separator: ",").map { $0.trimmingWhitespace() }
        .filter { !$0.isEmpty } : corsOrigins
    for origin in origins where origin != "*" && !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
      throw ValidationError("CORS origin \(origin) is not * or an http(s):// origin")
    }
    let listenHost = value(host, "INTENTMESH_HOST") ?? "127.0.0.1"
    let devTokens = value(devTokensFrom, "INTENTMESH_DEV_TOKENS_FROM")
    if devTokens != nil, !LoopbackHost.contains(listenHost) {
      throw ValidationError(
        "--dev-tokens-from lets anyone act as any user: it is allowed only on a loopback address, not \(listenHost)")
    }
    let refresh = refreshSeconds ?? environment["INTENTMESH_REFRESH_SECONDS"].flatMap(Double.init) ?? 10
    return GatewayConfiguration(
      host: listenHost,
      port: port,
      metricsPort: metrics < 0 ? nil : metrics,
      forwarding: forwardingMode,
      domains: endpoints,
      configFile: configFile,
      resolveInterval: .milliseconds(Int64(resolve * 1000)),
      hostsFile: value(hostsFile, "INTENTMESH_HOSTS_FILE"),
      otlpEndpoint: TraceExport.endpoint(flag: otlpEndpoint, environment: environment),
      refreshInterval: .milliseconds(Int64(refresh * 1000)),
      defaultTimeout: .milliseconds(Int64((defaultTimeoutSeconds ?? 10) * 1000)),
      maximumTimeout: .milliseconds(Int64((maximumTimeoutSeconds ?? 60) * 1000)),
      logLevel: level,
      eventLoops: loops,
      relayLimits: try relayLimits.limits(environment: environment),
      authentication: try authentication.configuration(environment: environment),
      tls: try tls.serverTLS(environment: environment),
      upstreamTLS: try upstreamTLS.clientTLS(environment: environment),
      cors: CORSPolicy(origins: origins),
      webRoot: value(webRoot, "INTENTMESH_WEB_ROOT"),
      devTokensFrom: devTokens
    )
  }
}
