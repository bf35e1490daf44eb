internal import IntentMeshProtos
internal import SwiftProtobuf
package import GRPCCore

/// The errors the runtime turns into gRPC statuses: bad input is the client's, never a crash.
package enum IntentMeshError: Error, Equatable, ExplainedRPCError {
  /// No handler for the intent class (NOT_FOUND).
  case unknownIntentClass(String)
  /// The payload is not the intent's message type, or its bytes do not decode (INVALID_ARGUMENT).
  case invalidPayload(String)
  /// A request field is missing or malformed (INVALID_ARGUMENT).
  case invalidArgument(String)
  /// The intent is restricted while locked and the device is locked (FAILED_PRECONDITION).
  case restrictedWhileLocked(intentClass: String)
  /// An intent identifier was reused with a different intent (FAILED_PRECONDITION).
  case identifierReused(identifier: String, intentClass: String)
  /// The request names another user's data (PERMISSION_DENIED).
  case permissionDenied(String)
  /// The request has no user (UNAUTHENTICATED).
  case unauthenticated(String)
  /// Handle of an intent that needs the user's yes came without a valid confirmation token for exactly
  /// that intent (FAILED_PRECONDITION).
  case confirmationRequired(String)
  /// Handle came with the user's yes to this intent, but values the user agreed to have changed
  /// since (the key paths of the changed parameters; none when only undeclared fields changed):
  /// Confirm the new values and ask again (FAILED_PRECONDITION).
  case confirmedValuesChanged(intentClass: String, parameters: [String])
  /// The intent has no live updates (UNIMPLEMENTED).
  case liveUpdatesUnsupported(intentClass: String)
  /// A handler broke the SiriKit contract, e.g. too few array results (INTERNAL).
  case handlerContract(String)
  /// A write kept finding what it read moved by concurrent writes, and was given up; nothing of it
  /// is stored, and the same request may be sent again (ABORTED).
  case writeConflict(String)

  package var rpcErrorCode: RPCError.Code {
    switch self {
    case .unknownIntentClass: .notFound
    case .invalidPayload, .invalidArgument: .invalidArgument
    case .restrictedWhileLocked, .identifierReused, .confirmationRequired, .confirmedValuesChanged:
      .failedPrecondition
    case .permissionDenied: .permissionDenied
    case .unauthenticated: .unauthenticated
    case .liveUpdatesUnsupported: .unimplemented
    case .handlerContract: .internalError
    case .writeConflict: .aborted
    }
  }

  package var rpcErrorMessage: String {
    switch self {
    case .unknownIntentClass(let name):
      name.isEmpty
        ? "intent.intent_class is empty; name a class such as INSendMessageIntent"
        : "no handler for intent class \(name) in this service"
    case .invalidPayload(let message), .invalidArgument(let message), .permissionDenied(let message),
      .unauthenticated(let message), .handlerContract(let message), .confirmationRequired(let message),
      .writeConflict(let message):
      message
    case .restrictedWhileLocked(let intentClass):
      "\(intentClass) is restricted while locked: the user must unlock the device first"
    case .identifierReused(let identifier, let intentClass):
      "intent identifier \(identifier) was already handled with a different \(intentClass); use a new identifier"
    case .liveUpdatesUnsupported(let intentClass):
      "\(intentClass) has no live updates"
    case .confirmedValuesChanged(let intentClass, let parameters):
      "confirm first: \(parameters.isEmpty ? "the \(intentClass)" : parameters.joined(separator: ", ")) changed since the user's yes; Confirm the new values and ask again (a changed value needs a new confirmation)"
    }
  }

  /// The reason in the error's `google.rpc.ErrorInfo` detail (grpc-status-details-bin), for
  /// clients that branch on it rather than on the message.
  package var reason: String {
    switch self {
    case .unknownIntentClass: "UNKNOWN_INTENT_CLASS"
    case .invalidPayload: "INVALID_PAYLOAD"
    case .invalidArgument: "INVALID_ARGUMENT"
    case .restrictedWhileLocked: "RESTRICTED_WHILE_LOCKED"
    case .identifierReused: "INTENT_IDENTIFIER_REUSED"
    case .permissionDenied: "PERMISSION_DENIED"
    case .unauthenticated: "NO_USER"
    case .confirmationRequired: "CONFIRMATION_REQUIRED"
    case .confirmedValuesChanged: "CONFIRMED_VALUES_CHANGED"
    case .liveUpdatesUnsupported: "NO_LIVE_UPDATES"
    case .handlerContract: "HANDLER_CONTRACT"
    case .writeConflict: "WRITE_CONFLICT"
    }
  }

  /// The `google.rpc.ErrorInfo` metadata: the changed parameters, comma-separated, under
  /// "parameters" for CONFIRMED_VALUES_CHANGED.
  package var reasonMetadata: [String: String] {
    guard case .confirmedValuesChanged(_, let parameters) = self else { return [:] }
    return ["parameters": parameters.joined(separator: ",")]
  }

}
