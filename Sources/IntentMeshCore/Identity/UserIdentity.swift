package import IntentMeshProtos

/// The one place that decides who the user is: the subject of the call's verified bearer token.
/// `context.user_id` is a claim the client writes, never trusted on its own: empty means "the
/// token's user", the token's subject is accepted, anyone else is PERMISSION_DENIED.
package enum UserIdentity {
  /// The user a call acts for when its request names none (an app service's): the verified
  /// token's subject.
  package static func caller() throws -> String {
    guard let caller = VerifiedCaller.current else {
      throw IntentMeshError.unauthenticated("no verified caller: send authorization: Bearer <JWT>")
    }
    return caller.subject
  }

  /// The user a request acts for.
  package static func userID(of context: Intentmesh_V1_RequestContext) throws -> String {
    let subject = try caller()
    let named = context.userID.trimmingWhitespace()
    guard named.isEmpty || same(named, subject) else {
      throw IntentMeshError.permissionDenied(
        "context.user_id \"\(named)\" is not the user of the bearer token; leave it empty or name the token's user")
    }
    return subject
  }

  /// Whether two user ids name the same user: byte for byte, as the stores and RFC 7519 compare
  /// them — not `String ==`, which equates canonically equivalent text (`UserKey`).
  package static func same(_ lhs: String, _ rhs: String) -> Bool {
    lhs.utf8.elementsEqual(rhs.utf8)
  }
}
