// gateway: routes every intent to the domain that declared its class, drives the conversation and
// lays out views for UI clients.
import ArgumentParser
import Foundation
import Gateway
import IntentsKit

let options = GatewayOptions.parseOrExit()
do {
  if options.healthCheck {
    // A probe needs only the port, not the domains.
    let port = options.port ?? ProcessInfo.processInfo.environment["INTENTMESH_PORT"].flatMap { Int($0) } ?? 50060
    exit(await HealthProbe.exitStatus(port: port))
  }
  try await GatewayServer(configuration: try options.configuration()).run()
} catch {
  FileHandle.standardError.write(Data("gateway: \(error)\n".utf8))
  exit(1)
}
