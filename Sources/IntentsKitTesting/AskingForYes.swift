package import GRPCCore
internal import GRPCProtobuf
package import IntentMeshProtos
internal import SwiftProtobuf

extension Intentmesh_V1_IntentsExtension.Client {
  /// What a host does before it asks the user for a yes: resolves `intent` for `context`'s user and
  /// confirms what Resolve settled. The settled intent, whether every parameter settled, and
  /// Confirm's confirmation token (empty when the intent needs no yes, or Confirm refused).
  package func askForYes(_ intent: Intentmesh_V1_Intent, context: Intentmesh_V1_RequestContext) async throws
    -> (intent: Intentmesh_V1_Intent, complete: Bool, token: String)
  {
    let resolved = try await resolve(
      .with {
        $0.context = context
        $0.intent = intent
      })
    let confirmed = try await confirm(
      .with {
        $0.context = context
        $0.intent = resolved.resolvedIntent
      })
    return (resolved.resolvedIntent, resolved.complete, confirmed.confirmationToken)
  }
}

extension RPCError {
  /// The parameters a CONFIRMED_VALUES_CHANGED refusal of the user's yes names (its
  /// `google.rpc.ErrorInfo`); nil for any other error.
  package var changedParameters: [String]? {
    guard code == .failedPrecondition,
      let info = (try? unpackGoogleRPCStatus())??.details.compactMap(\.errorInfo).first,
      info.reason == "CONFIRMED_VALUES_CHANGED"
    else { return nil }
    return (info.metadata["parameters"] ?? "").split(separator: ",").map(String.init)
  }
}
