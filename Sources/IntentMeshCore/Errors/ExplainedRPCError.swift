package import GRPCCore
internal import GRPCProtobuf

/// An error whose gRPC status carries a `google.rpc.ErrorInfo` detail (in
/// `grpc-status-details-bin`) naming its reason, for clients that branch on the reason rather
/// than on the message; grpcurl prints it.
package protocol ExplainedRPCError: RPCErrorConvertible {
  /// UPPER_SNAKE_CASE, stable across releases (e.g. "NO_ROUTE").
  var reason: String { get }
  /// Structured facts about the error in its `ErrorInfo` (none by default).
  var reasonMetadata: [String: String] { get }
}

extension ExplainedRPCError {
  package var reasonMetadata: [String: String] { [:] }

  package var rpcErrorMetadata: Metadata {
    GoogleRPCStatus(
      code: rpcErrorCode, message: rpcErrorMessage,
      details: [.errorInfo(reason: reason, domain: ExplainedErrorDomain.intentMesh, metadata: reasonMetadata)]
    ).rpcErrorMetadata
  }
}

/// The `domain` of IntentMesh's `google.rpc.ErrorInfo` details.
enum ExplainedErrorDomain {
  static let intentMesh = "intentmesh.dev"
}
