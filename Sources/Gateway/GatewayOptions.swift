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
internal import IntentMeshCore

/// The gateway's command line; a flag wins over its environment variable, which wins over the default.
package struct GatewayOptions: ParsableArguments {
  /// The gateway's port unless told.
  package static let defaultPort = 50060

  @OptionGroup(title: "The server (default port 50060)")
  package var server: ServerOptions

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
  var resolveSeconds: Double?

  @Option(
    help:
      "A hosts-format file (address name …) the domains' names are looked up in first, read at every lookup; names it does not list go to the system resolver (env INTENTMESH_HOSTS_FILE)."
  )
  var hostsFile: String?

  @Option(help: "Seconds between Describe rounds (env INTENTMESH_REFRESH_SECONDS; default 10).")
  var refreshSeconds: Double?

  @Option(help: "Deadline in seconds of a domain call when the caller sets none (default 10).")
  var defaultTimeoutSeconds: Double?

  @Option(help: "Longest deadline in seconds a domain call gets (default 60).")
  var maximumTimeoutSeconds: Double?

  @Option(
    help:
      "relay: pass-through calls go to their domain as HTTP/2 streams, undecoded (default); grpc: the gateway's gRPC server forwards every call itself (env INTENTMESH_FORWARDING)."
  )
  var forwarding: String?

  @Option(
    name: .customLong("cors-origin"),
    help:
      "A web origin (https://app.example.com, or * for any) whose pages may call the gateway's Connect and gRPC-Web API; repeatable (env INTENTMESH_CORS_ORIGINS, comma-separated). The gateway's own page needs none."
  )
  var corsOrigins: [String] = []

  @Option(help: "Serve the web app from this folder instead of the copy built in (env INTENTMESH_WEB_ROOT).")
  var webRoot: String?

  @Option(
    help:
      "Development only: sign tokens for any user at POST /dev/token (the web app's \"Sign in as\") with the local identity in this folder, as `intentmesh up` does; allowed only on a loopback address (env INTENTMESH_DEV_TOKENS_FROM)."
  )
  var devTokensFrom: String?

  @Option(
    help:
      "Event-loop threads serving connections (env INTENTMESH_EVENT_LOOPS; default one per CPU core the process may use)."
  )
  var eventLoops: Int?

  @OptionGroup(title: "Limits of the public port (what any one client may make the gateway hold or do)")
  var relayLimits: RelayLimitOptions

  @OptionGroup(title: "TLS towards the domains")
  var upstreamTLS: UpstreamTLSOptions

  package init() {}

  /// Whether this run is only a container health probe (`--health-check`).
  package var healthCheck: Bool { server.healthCheck }

  package func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> GatewayConfiguration
  {
    let lookup = OptionLookup(environment)
    let server = try server.settings(
      defaultPort: Self.defaultPort, defaultCallExecutor: .pool, environment: environment)
    let endpoints = try lookup.list(domains, "INTENTMESH_DOMAINS").map { text in
      guard let endpoint = DomainEndpoint(text) else { throw ValidationError("\"\(text)\" is not host:port") }
      return endpoint
    }
    let configFile = lookup.string(config, "INTENTMESH_GATEWAY_CONFIG")
    let fromFile = try configFile.map { try GatewayConfiguration.domains(fromFile: $0) } ?? []
    guard !(endpoints + fromFile).isEmpty else {
      throw ValidationError("name at least one domain: --domain host:port")
    }
    let resolve =
      try lookup.seconds(resolveSeconds, "INTENTMESH_RESOLVE_SECONDS", "resolve interval", in: 0.05...86_400) ?? 5
    let forwardingText = lookup.string(forwarding, "INTENTMESH_FORWARDING") ?? "relay"
    guard let forwardingMode = GatewayConfiguration.Forwarding(rawValue: forwardingText) else {
      throw ValidationError("forwarding \(forwardingText) is not relay or grpc")
    }
    let loops = try lookup.integer(eventLoops, "INTENTMESH_EVENT_LOOPS", "event loops", in: 1...256)
    let origins = lookup.list(corsOrigins, "INTENTMESH_CORS_ORIGINS")
    for origin in origins where origin != "*" && !(origin.hasPrefix("http://") || origin.hasPrefix("https://")) {
      throw ValidationError("CORS origin \(origin) is not * or an http(s):// origin")
    }
    let devTokens = lookup.string(devTokensFrom, "INTENTMESH_DEV_TOKENS_FROM")
    if devTokens != nil, !LoopbackHost.contains(server.host) {
      throw ValidationError(
        "--dev-tokens-from lets anyone act as any user: it is allowed only on a loopback address, not \(server.host)")
    }
    guard let authentication = server.authentication else {
      throw ValidationError("no JWKS: pass --jwks FILE|https-URL (env INTENTMESH_JWKS)")
    }
    let refresh =
      try lookup.seconds(refreshSeconds, "INTENTMESH_REFRESH_SECONDS", "refresh interval", in: 0.05...86_400) ?? 10
    return GatewayConfiguration(
      host: server.host,
      port: server.port,
      metricsPort: server.metricsPort,
      forwarding: forwardingMode,
      domains: endpoints,
      configFile: configFile,
      resolveInterval: .milliseconds(Int64(resolve * 1000)),
      hostsFile: lookup.string(hostsFile, "INTENTMESH_HOSTS_FILE"),
      otlpEndpoint: server.otlpEndpoint,
      refreshInterval: .milliseconds(Int64(refresh * 1000)),
      defaultTimeout: .milliseconds(Int64((defaultTimeoutSeconds ?? 10) * 1000)),
      maximumTimeout: .milliseconds(Int64((maximumTimeoutSeconds ?? 60) * 1000)),
      logLevel: server.logLevel,
      eventLoops: loops,
      callExecutor: server.callExecutor,
      relayLimits: try relayLimits.limits(environment: environment),
      authentication: authentication,
      tls: server.tls,
      upstreamTLS: try upstreamTLS.clientTLS(environment: environment),
      cors: CORSPolicy(origins: origins),
      webRoot: lookup.string(webRoot, "INTENTMESH_WEB_ROOT"),
      devTokensFrom: devTokens
    )
  }
}
