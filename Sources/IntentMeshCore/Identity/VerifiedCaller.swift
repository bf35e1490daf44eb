/// Who a call comes from, as its verified bearer token says: set by `AuthenticationInterceptor` for
/// the call's handler and response, read by `UserIdentity`.
package struct VerifiedCaller: Sendable, Equatable {
  /// The token's `sub`: the user the call acts for.
  package let subject: String
  /// The token's `exp`, seconds since 1970.
  package let expiresAt: Double

  package init(subject: String, expiresAt: Double) {
    self.subject = subject
    self.expiresAt = expiresAt
  }

  /// The caller of the call in progress; nil outside an authenticated call.
  @TaskLocal package static var current: VerifiedCaller?
}
