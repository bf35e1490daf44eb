// gateway: routes every intent to the domain that declared its class, drives the conversation and
// lays out views for UI clients.
import ArgumentParser
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif
#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif
import Gateway
import ServiceKit

let options = GatewayOptions.parseOrExit()
do {
  if options.healthCheck {
    // A probe reads the server flags as the gateway does (bad ones fail it as they would fail the
    // gateway), not the domains.
    let server = try options.server.settings(
      defaultPort: GatewayOptions.defaultPort, environment: ProcessInfo.processInfo.environment)
    exit(await HealthProbe.exitStatus(port: server.port, tls: server.tls))
  }
  try await GatewayServer(configuration: try options.configuration()).run()
} catch {
  ProcessOutput.standardError("gateway: \(error)")
  exit(1)
}
