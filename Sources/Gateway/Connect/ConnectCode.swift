internal import GRPCCore

/// gRPC status codes as the Connect protocol names them and the HTTP status a unary error
/// answers with (connectrpc.com/docs/protocol, "Error Codes").
enum ConnectCode {
  /// The Connect name of `code`: "invalid_argument" for INVALID_ARGUMENT.
  static func name(_ code: RPCError.Code) -> String {
    switch code {
    case .cancelled: "canceled"
    case .unknown: "unknown"
    case .invalidArgument: "invalid_argument"
    case .deadlineExceeded: "deadline_exceeded"
    case .notFound: "not_found"
    case .alreadyExists: "already_exists"
    case .permissionDenied: "permission_denied"
    case .resourceExhausted: "resource_exhausted"
    case .failedPrecondition: "failed_precondition"
    case .aborted: "aborted"
    case .outOfRange: "out_of_range"
    case .unimplemented: "unimplemented"
    case .internalError: "internal"
    case .unavailable: "unavailable"
    case .dataLoss: "data_loss"
    case .unauthenticated: "unauthenticated"
    default: "unknown"
    }
  }

  /// The HTTP status of a unary response ending with `code`.
  static func httpStatus(_ code: RPCError.Code) -> Int {
    switch code {
    case .cancelled: 499
    case .invalidArgument, .failedPrecondition, .outOfRange: 400
    case .deadlineExceeded: 504
    case .notFound: 404
    case .alreadyExists, .aborted: 409
    case .permissionDenied: 403
    case .resourceExhausted: 429
    case .unimplemented: 501
    case .unavailable: 503
    case .unauthenticated: 401
    default: 500
    }
  }
}
