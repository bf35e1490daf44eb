import Foundation
import IntentMeshProtos
import SwiftProtobuf
import ArgumentParser

/// The gateway's routing table.
struct RoutesCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "routes", abstract: "List the domains and intents the gateway routes.")

  @Option(help: "The gateway's host:port.")
  var gateway: String = "127.0.0.1:50060"

  @Option(help: "Speak TLS to the gateway, checking its certificate against this PEM CA (env INTENTMESH_TLS_CA).")
  var tlsCA: String?

  func run() async throws {
    let ca = tlsCA ?? ProcessInfo.processInfo.environment["INTENTMESH_TLS_CA"].flatMap { $0.isEmpty ? nil : $0 }
    try await GatewayClient.with(gateway, tlsCA: ca) { session in
      let gateway = session.gateway
      let table = try await gateway.listRoutes(.init())
      for domain in table.domains {
        let names = ([domain.appName] + domain.alternativeAppNames).filter { !$0.isEmpty }.joined(separator: " / ")
        Terminal.say(
          "\(domain.endpoint)  \(domain.health)  \(names.isEmpty ? "(no manifest)" : names)  \(domain.intentCount) intents\(domain.lastError.isEmpty ? "" : "  last error: \(domain.lastError)")"
        )
      }
      for route in table.routes {
        Terminal.say(
          "  \(route.intentClass) → \(route.appName)\(route.restrictedWhileLocked ? " (unlock required)" : "")")
      }
    }
  }
}
