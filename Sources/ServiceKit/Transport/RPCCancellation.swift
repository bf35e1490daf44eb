internal import IntentMeshProtos
internal import SwiftProtobuf
internal import GRPCCore

/// grpc-swift signals a cancelled RPC (the client went away, a deadline passed, the server is
/// shutting down) through the server context, not by cancelling the handler's task. Long-running
/// handlers — live-update streams — run their work through this, so it is cancelled either way and
/// whatever it waits on is freed.
package enum RPCCancellation {
  package static func cancellingWithRPC<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws
    -> T
  {
    let task = Task { try await body() }
    return try await withTaskCancellationHandler {
      try await withRPCCancellationHandler {
        try await task.value
      } onCancelRPC: {
        task.cancel()
      }
    } onCancel: {
      task.cancel()
    }
  }
}
