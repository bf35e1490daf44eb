internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import Logging
internal import ServiceLifecycle

/// Marks the service SERVING once the server listens (and prints the address, for people and for
/// tests that start the executable), and NOT_SERVING as soon as shutdown begins.
package struct ReadinessReporter: Service {
  let serviceName: String
  let appName: String
  let board: HealthStatusBoard
  let logger: Logger
  let listeningAddress: @Sendable () async throws -> GRPCNIOTransportCore.SocketAddress?

  package func run() async throws {
    guard let address = try await listeningAddress() else { return }
    let endpoint =
      address.ipv4.map { "\($0.host):\($0.port)" } ?? address.ipv6.map { "[\($0.host)]:\($0.port)" } ?? "\(address)"
    board.set(.serving, for: "")
    board.set(.serving, for: "intentmesh.v1.IntentsExtension")
    logger.info("serving", metadata: ["app": "\(appName)", "address": "\(endpoint)"])
    FileHandle.standardOutput.write(Data("\(serviceName) (\(appName)) serving on \(endpoint)\n".utf8))
    try? await gracefulShutdown()
    board.set(.notServing, for: "")
    board.set(.notServing, for: "intentmesh.v1.IntentsExtension")
    board.finish()
    logger.info("shutting down: draining calls in flight")
  }
}
