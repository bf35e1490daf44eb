package import JWTKit

/// The registered claims (RFC 7519 §4.1) a service checks. Numbers stay numbers: the verifier compares
/// them with its own clock and leeway, after the signature has verified.
package struct AccessTokenClaims: JWTPayload, Equatable {
  package var sub: String?
  package var iss: String?
  /// `aud` is a string or an array of strings.
  package var aud: [String]
  package var exp: Double?
  var nbf: Double?
  var iat: Double?

  package init(sub: String?, iss: String?, aud: [String], exp: Double?, nbf: Double? = nil, iat: Double? = nil) {
    self.sub = sub
    self.iss = iss
    self.aud = aud
    self.exp = exp
    self.nbf = nbf
    self.iat = iat
  }

  enum CodingKeys: String, CodingKey { case sub, iss, aud, exp, nbf, iat }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    sub = try container.decodeIfPresent(String.self, forKey: .sub)
    iss = try container.decodeIfPresent(String.self, forKey: .iss)
    if let one = try? container.decodeIfPresent(String.self, forKey: .aud) {
      aud = [one]
    } else {
      aud = try container.decodeIfPresent([String].self, forKey: .aud) ?? []
    }
    exp = try container.decodeIfPresent(Double.self, forKey: .exp)
    nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
    iat = try container.decodeIfPresent(Double.self, forKey: .iat)
  }

  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(sub, forKey: .sub)
    try container.encodeIfPresent(iss, forKey: .iss)
    if aud.count == 1 {
      try container.encode(aud[0], forKey: .aud)
    } else if !aud.isEmpty {
      try container.encode(aud, forKey: .aud)
    }
    try container.encodeIfPresent(exp, forKey: .exp)
    try container.encodeIfPresent(nbf, forKey: .nbf)
    try container.encodeIfPresent(iat, forKey: .iat)
  }

  /// The verifier checks the claims itself, with its clock; jwt-kit checks only the signature.
  package func verify(using algorithm: some JWTAlgorithm) async throws {}
}
