internal import SwiftProtobuf
package import IntentMeshProtos

/// The one place that knows who the user is. For now the user id comes from the request context;
/// when a verified token replaces it, only this file changes.
package enum UserIdentity {
  /// The user a request acts for; UNAUTHENTICATED when there is none.
  package static func userID(of context: Intentmesh_V1_RequestContext) throws -> String {
    let id = context.userID.trimmingWhitespace()
    guard !id.isEmpty else {
      throw IntentMeshError.unauthenticated("context.user_id is empty: every request names its user")
    }
    return id
  }
}
