internal import GRPCCore
internal import GRPCProtobuf

/// A domain's refusal of the user's yes at Handle (FAILED_PRECONDITION with reason
/// CONFIRMATION_REQUIRED or CONFIRMED_VALUES_CHANGED in its `google.rpc.ErrorInfo`): the yes was
/// missing, expired or for another intent, or values the user agreed to changed since. Either way
/// the conversation asks again rather than failing.
struct ConfirmationRefusal: Equatable {
  /// The parameters whose agreed values changed; empty for a yes that no longer holds otherwise.
  let changedParameters: [String]

  static let domain = "intentmesh.dev"

  /// The refusal `error` is, or nil when it is another error.
  init?(_ error: RPCError) {
    guard error.code == .failedPrecondition, let status = try? error.unpackGoogleRPCStatus() else { return nil }
    for detail in status.details {
      guard let info = detail.errorInfo, info.domain == Self.domain else { continue }
      switch info.reason {
      case "CONFIRMATION_REQUIRED":
        changedParameters = []
        return
      case "CONFIRMED_VALUES_CHANGED":
        changedParameters = (info.metadata["parameters"] ?? "").split(separator: ",").map(String.init)
        return
      default:
        continue
      }
    }
    return nil
  }
}
