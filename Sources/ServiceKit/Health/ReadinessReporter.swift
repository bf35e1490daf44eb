internal import IntentMeshProtos
internal import SwiftProtobuf
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
package import Logging
internal import ServiceLifecycle
internal import IntentMeshCore

/// Marks the service SERVING once the server listens (and prints the address, for people and for
/// tests that start the executable), and NOT_SERVING as soon as shutdown begins.
package struct ReadinessReporter: Service {
  let serviceName: String
  let appName: String
  let board: HealthStatusBoard
  let logger: Logger
  let serviceNames: [String]
  let listeningAddress: @Sendable () async throws -> String?

  package init(
    serviceName: String, appName: String, board: HealthStatusBoard, logger: Logger,
    serviceNames: [String] = ["", "intentmesh.v1.IntentsExtension"],
    listeningAddress: @escaping @Sendable () async throws -> String?
  ) {
    self.serviceName = serviceName
    self.appName = appName
    self.board = board
    self.logger = logger
    self.serviceNames = serviceNames
    self.listeningAddress = listeningAddress
  }

  package func run() async throws {
    guard let endpoint = try await listeningAddress() else { return }
    for name in serviceNames { board.set(.serving, for: name) }
    logger.info("serving", metadata: ["app": "\(appName)", "address": "\(endpoint)"])
    ProcessOutput.standardOutput(ServingLine.text(service: serviceName, app: appName, address: "\(endpoint)"))
    try? await gracefulShutdown()
    for name in serviceNames { board.set(.notServing, for: name) }
    board.finish()
    logger.info("shutting down: draining calls in flight")
  }
}
