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

  func run() async throws {
    try await GatewayClient.with(gateway) { gateway, _ in
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
