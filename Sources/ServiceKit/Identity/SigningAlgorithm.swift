/// The public-key JWS algorithms (RFC 7518) a token may be signed with, and the key each needs.
/// Everything else (`none`, the HMACs, unknown names) is refused before any key is looked at, so a
/// public key can never be used as an HMAC secret.
enum SigningAlgorithm: String, Sendable, CaseIterable {
  case es256 = "ES256"
  case es384 = "ES384"
  case rs256 = "RS256"
  case rs384 = "RS384"
  case rs512 = "RS512"
  case ps256 = "PS256"
  case edDSA = "EdDSA"

  /// The algorithm a JOSE header names; `TokenRejection.algorithmRefused` for anything else.
  init(header alg: String) throws(TokenRejection) {
    guard let known = SigningAlgorithm(rawValue: alg) else {
      throw .algorithmRefused(alg.isEmpty ? "(empty)" : TokenRejection.shown(alg))
    }
    self = known
  }

  /// Whether a JWK of type `kty` (and curve `crv`) can verify this algorithm.
  func fits(keyType: String, curve: String?) -> Bool {
    switch self {
    case .es256: keyType == "EC" && curve == "P-256"
    case .es384: keyType == "EC" && curve == "P-384"
    case .rs256, .rs384, .rs512, .ps256: keyType == "RSA"
    case .edDSA: keyType == "OKP" && curve == "Ed25519"
    }
  }
}
