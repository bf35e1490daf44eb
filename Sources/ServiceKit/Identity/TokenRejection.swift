package import GRPCCore
import IntentMeshCore

/// Why a bearer token was not accepted: always UNAUTHENTICATED, with a message that says which check
/// failed and a stable reason for clients that branch on it. Nothing of the token is echoed back.
package enum TokenRejection: Error, Equatable, ExplainedRPCError {
  /// No `authorization` header.
  case missing
  /// The header is not `Bearer <token>`, or the token is not three base64url parts of JSON.
  case malformed(String)
  /// `alg` is `none`, an HMAC, or otherwise not a public-key algorithm this service accepts.
  case algorithmRefused(String)
  /// The header names no `kid`, or one the JWKS does not hold (after a refresh).
  case unknownKey(String)
  /// The key's type or declared algorithm does not match the token's `alg`.
  case keyMismatch(String)
  /// The signature does not verify with the key.
  case badSignature
  /// `exp` is missing, or past (beyond the leeway).
  case expired(String)
  /// `nbf` is in the future (beyond the leeway).
  case notYetValid(String)
  /// `iss` is not the configured issuer.
  case wrongIssuer(expected: String, got: String)
  /// `aud` does not name the configured audience.
  case wrongAudience(expected: String, got: [String])
  /// `sub` is missing or empty.
  case noSubject
  /// The JWKS could not be loaded, so no token can be checked.
  case keysUnavailable(String)

  package var rpcErrorCode: RPCError.Code { .unauthenticated }

  /// A value from an unverified token as a message may show it: printable ASCII, at most 64 characters.
  package static func shown(_ value: String) -> String {
    let printable = value.unicodeScalars.prefix(64).map {
      (0x20..<0x7F).contains($0.value) && $0 != "\"" ? Character($0) : "?"
    }
    return String(printable) + (value.unicodeScalars.count > 64 ? "…" : "")
  }

  package var rpcErrorMessage: String {
    switch self {
    case .missing: "missing credentials: send authorization: Bearer <JWT>"
    case .malformed(let why): "malformed bearer token: \(why)"
    case .algorithmRefused(let alg):
      "token algorithm \(alg) is refused: only ES256/ES384, RS256/RS384/RS512, PS256 and EdDSA"
    case .unknownKey(let why): "unknown signing key: \(why)"
    case .keyMismatch(let why): "token does not match its key: \(why)"
    case .badSignature: "token signature does not verify"
    case .expired(let why): "token expired: \(why)"
    case .notYetValid(let why): "token not yet valid: \(why)"
    case .wrongIssuer(let expected, let got): "wrong token issuer: expected \"\(expected)\", got \"\(got)\""
    case .wrongAudience(let expected, let got):
      "wrong token audience: expected \"\(expected)\", got \(got.isEmpty ? "none" : got.map { "\"\($0)\"" }.joined(separator: ", "))"
    case .noSubject: "token has no sub: it names no user"
    case .keysUnavailable(let why): "signing keys unavailable: \(why)"
    }
  }

  package var reason: String {
    switch self {
    case .missing: "CREDENTIALS_MISSING"
    case .malformed: "TOKEN_MALFORMED"
    case .algorithmRefused: "TOKEN_ALGORITHM_REFUSED"
    case .unknownKey: "TOKEN_KEY_UNKNOWN"
    case .keyMismatch: "TOKEN_KEY_MISMATCH"
    case .badSignature: "TOKEN_SIGNATURE_INVALID"
    case .expired: "TOKEN_EXPIRED"
    case .notYetValid: "TOKEN_NOT_YET_VALID"
    case .wrongIssuer: "TOKEN_ISSUER_WRONG"
    case .wrongAudience: "TOKEN_AUDIENCE_WRONG"
    case .noSubject: "TOKEN_SUBJECT_MISSING"
    case .keysUnavailable: "KEYS_UNAVAILABLE"
    }
  }
}
