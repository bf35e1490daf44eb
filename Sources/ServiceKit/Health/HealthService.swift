internal import SwiftProtobuf
package import GRPCCore
package import IntentMeshProtos

/// `grpc.health.v1.Health`: Check answers the current status (NOT_FOUND for an unknown service),
/// Watch streams it and each change until the client leaves or the server shuts down.
package struct HealthService: Grpc_Health_V1_Health.SimpleServiceProtocol {
  package let board: HealthStatusBoard

  package init(board: HealthStatusBoard) {
    self.board = board
  }

  package func check(
    request: Grpc_Health_V1_HealthCheckRequest, context: ServerContext
  ) async throws -> Grpc_Health_V1_HealthCheckResponse {
    guard let status = board.status(of: request.service) else {
      throw RPCError(code: .notFound, message: "unknown service \"\(request.service)\"")
    }
    return .with { $0.status = status }
  }

  package func watch(
    request: Grpc_Health_V1_HealthCheckRequest,
    response: RPCWriter<Grpc_Health_V1_HealthCheckResponse>,
    context: ServerContext
  ) async throws {
    var last: HealthStatusBoard.Status?
    for await status in board.updates(for: request.service) where status != last {
      last = status
      try await response.write(.with { $0.status = status })
    }
  }
}
