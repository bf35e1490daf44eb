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
    // A probe needs only the port, not the domains.
    let port = options.port ?? ProcessInfo.processInfo.environment["INTENTMESH_PORT"].flatMap { Int($0) } ?? 50060
    exit(
      await HealthProbe.exitStatus(
        port: port, tls: try? options.tls.serverTLS(environment: ProcessInfo.processInfo.environment)))
  }
  try await GatewayServer(configuration: try options.configuration()).run()
} catch {
  ProcessOutput.standardError("gateway: \(error)")
  exit(1)
}
