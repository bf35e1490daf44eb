package import IntentMeshCore

/// What a token must say to be accepted, besides a good signature.
package struct TokenPolicy: Sendable, Equatable {
  /// The `iss` every token must carry: the identity provider's issuer URL.
  package var issuer: String
  /// A value `aud` must contain: this deployment's API identifier.
  package var audience: String
  /// Clock skew allowed on `exp` and `nbf`, in seconds.
  var leewaySeconds: Double

  package init(issuer: String, audience: String, leewaySeconds: Double = 30) {
    self.issuer = issuer
    self.audience = audience
    self.leewaySeconds = leewaySeconds
  }

  /// The caller `claims` describe at `now` (seconds since 1970), or why they are refused.
  package func caller(from claims: AccessTokenClaims, now: Double) throws(TokenRejection) -> VerifiedCaller {
    guard let exp = claims.exp else { throw .expired("the token has no exp") }
    guard exp.isFinite, now <= exp + leewaySeconds else { throw .expired("exp was \(Self.seconds(now - exp)) s ago") }
    if let nbf = claims.nbf, !nbf.isFinite || now + leewaySeconds < nbf {
      throw .notYetValid("nbf is in \(Self.seconds(nbf - now)) s")
    }
    guard claims.iss == issuer else {
      throw .wrongIssuer(expected: issuer, got: TokenRejection.shown(claims.iss ?? ""))
    }
    guard claims.aud.contains(audience) else {
      throw .wrongAudience(expected: audience, got: claims.aud.prefix(4).map(TokenRejection.shown))
    }
    guard let subject = claims.sub, !subject.isEmpty else { throw .noSubject }
    return VerifiedCaller(subject: subject, expiresAt: exp + leewaySeconds)
  }

  /// Whole seconds for a message, whatever the claim held.
  static func seconds(_ value: Double) -> String {
    guard value.isFinite, abs(value) < 1e15 else { return "many" }
    return "\(Int(value))"
  }
}
