#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif
package import Crypto

/// The identity provider of a one-machine deployment: an ES256 key pair kept in a folder, the JWKS
/// every service is pointed at, and tokens for any user. `intentmesh up` and `intentmesh token` use
/// it; a real deployment points the services at its provider's JWKS instead and never has one.
package struct LocalIssuer: Sendable {
  static let keyFileName = "signing-key.pem"
  package static let jwksFileName = "jwks.json"
  package static let defaultIssuer = "intentmesh"
  package static let defaultAudience = "intentmesh"

  let signingKey: P256.Signing.PrivateKey
  /// The `kid`: the start of the public key's RFC 7638 thumbprint.
  let keyID: String

  package init(signingKey: P256.Signing.PrivateKey) {
    self.signingKey = signingKey
    let thumbprint = SHA256.hash(data: Data(Self.thumbprintInput(of: signingKey.publicKey).utf8))
    self.keyID = Base64URL.encoded(Data(thumbprint)).prefix(16).description
  }

  /// The issuer whose key is in `directory`, made there (key 0600, JWKS 0644) the first time.
  package static func loadOrCreate(in directory: URL) throws -> LocalIssuer {
    let keyFile = directory.appendingPathComponent(keyFileName)
    let jwksFile = directory.appendingPathComponent(jwksFileName)
    if !FileManager.default.fileExists(atPath: keyFile.path) {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      // Created with mode 0600 and only if absent: never readable by others, and two first runs
      // at once keep one key (the loser reads the winner's).
      try KeyFile.createExclusively(keyFile.path, contents: P256.Signing.PrivateKey().pemRepresentation)
    }
    let pem = try String(contentsOf: keyFile, encoding: .utf8)
    let issuer = LocalIssuer(signingKey: try P256.Signing.PrivateKey(pemRepresentation: pem))
    try Data(issuer.jwks.utf8).write(to: jwksFile, options: .atomic)
    return issuer
  }

  /// The JWKS of the public key, as a provider serves it at its `jwks_uri`.
  package var jwks: String {
    let (x, y) = Self.coordinates(of: signingKey.publicKey)
    return #"{"keys":[{"kty":"EC","crv":"P-256","alg":"ES256","use":"sig","kid":"\#(keyID)","x":"\#(x)","y":"\#(y)"}]}"#
      + "\n"
  }

  /// A token that says `subject` for `ttl`, from `issuer` to `audience`.
  package func token(
    subject: String, ttl: Duration = .seconds(3600), issuer: String = defaultIssuer,
    audience: String = defaultAudience, now: Double = Date().timeIntervalSince1970
  ) throws -> String {
    let claims = AccessTokenClaims(
      sub: subject, iss: issuer, aud: [audience], exp: (now + Double(ttl.components.seconds)).rounded(.down),
      nbf: now.rounded(.down), iat: now.rounded(.down))
    return try sign(claims)
  }

  /// Any claims, signed: tests use it for tokens a provider would never issue.
  package func sign(_ claims: AccessTokenClaims, keyID: String? = nil) throws -> String {
    try Self.compactJWS(
      header: #"{"alg":"ES256","typ":"JWT","kid":"\#(keyID ?? self.keyID)"}"#, payload: JSONEncoder().encode(claims)
    ) { input in try signingKey.signature(for: input).rawRepresentation }
  }

  /// `header.payload.signature` in base64url, the signature made by `sign` over the first two.
  static func compactJWS(header: String, payload: Data, sign: (Data) throws -> Data) rethrows -> String {
    let input = Base64URL.encoded(Data(header.utf8)) + "." + Base64URL.encoded(payload)
    return input + "." + Base64URL.encoded(try sign(Data(input.utf8)))
  }

  private static func coordinates(of key: P256.Signing.PublicKey) -> (String, String) {
    let raw = key.rawRepresentation  // x ‖ y, 32 bytes each
    return (Base64URL.encoded(raw.prefix(32)), Base64URL.encoded(raw.suffix(32)))
  }

  private static func thumbprintInput(of key: P256.Signing.PublicKey) -> String {
    let (x, y) = coordinates(of: key)
    return #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
  }
}
