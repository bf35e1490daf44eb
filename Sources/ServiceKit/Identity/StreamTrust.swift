package import GRPCCore
package import IntentMeshCore

/// A response stream held open only while its bearer token holds: the stream's work runs beside
/// `TokenVerifier.untilDistrusted`, and when the token expires or stops verifying against a new
/// key set (its key left the JWKS), the work is cancelled and the stream ends with UNAUTHENTICATED
/// — what a new call with that token would get. A live-update stream otherwise outlives the trust
/// it was opened with, for as long as the client keeps it.
package enum StreamTrust {
  /// The methods whose responses stream, as (service, method): the contract's only one. Checked
  /// against every generated service's descriptors by the tests.
  package static let streamingMethods: [(service: String, method: String)] = [
    ("intentmesh.v1.IntentsExtension", "StartSendingUpdates")
  ]

  /// Whether responses of `method` stream.
  static func streams(_ method: MethodDescriptor) -> Bool {
    let service = method.service.fullyQualifiedService
    return streamingMethods.contains { $0.method == method.method && $0.service == service }
  }

  private enum Outcome: Sendable {
    case finished(Metadata)
    case distrusted(TokenRejection)
  }

  /// Runs `stream` (a response producer) until it finishes, or until `token` no longer proves
  /// `caller`; then cancels it and throws the token's rejection.
  package static func run(
    _ token: Substring, caller: VerifiedCaller, verifier: TokenVerifier, checkEvery interval: Duration = .seconds(1),
    _ stream: @escaping @Sendable () async throws -> Metadata
  ) async throws -> Metadata {
    let outcome = try await withThrowingTaskGroup(of: Outcome?.self, returning: Outcome?.self) { group in
      group.addTask { .finished(try await stream()) }
      group.addTask {
        guard let rejection = await verifier.untilDistrusted(token, caller: caller, interval: interval) else {
          return nil
        }
        return .distrusted(rejection)
      }
      // The watch returns nil only when cancelled; the stream's result, or the watch's verdict,
      // whichever comes first, ends both.
      while let next = try await group.next() {
        guard let next else { continue }
        group.cancelAll()
        return next
      }
      return nil
    }
    switch outcome {
    case .finished(let trailers): return trailers
    case .distrusted(let rejection):
      throw RPCError(
        code: rejection.rpcErrorCode, message: rejection.rpcErrorMessage, metadata: rejection.rpcErrorMetadata)
    case nil: throw CancellationError()
    }
  }
}
