import Crypto
import CryptoExtras
import Foundation
import GRPCCore
import SwiftProtobuf
import IntentMeshProtos
import IntentsKitTesting
import Logging
@testable import ServiceKit
@testable import IntentMeshCore
import Testing

/// Bearer tokens checked as every service checks them: the accepted algorithms, and each way a token
/// is refused, with the message that says which.
@Suite("Identity: bearer token verification")
struct TokenVerifierTests {
  static let now: Double = 1_800_000_000
  static let issuer = LocalIssuer(signingKey: P256.Signing.PrivateKey())

  /// A JWKS file with `keys` (JSON objects), and a verifier of it at `now`.
  static func verifier(
    keys: [String], policy: TokenPolicy = TokenPolicy(issuer: "intentmesh", audience: "intentmesh"),
    clock: @escaping @Sendable () -> Double = { now }
  ) async throws -> (TokenVerifier, URL) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString).json")
    try Data(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8).write(to: file)
    var logger = Logger(label: "test.tokens")
    logger.logLevel = .critical
    let verifier = TokenVerifier(
      source: .file(file.path), policy: policy, unknownKeyRefreshInterval: 0, logger: logger, now: clock)
    try await verifier.loadKeys()
    return (verifier, file)
  }

  static var issuerKey: String {
    let jwks = issuer.jwks
    let start = jwks.range(of: "[")!.upperBound
    let end = jwks.range(of: "]", options: .backwards)!.lowerBound
    return String(jwks[start..<end])
  }

  static func claims(
    sub: String? = "diana", iss: String? = "intentmesh", aud: [String] = ["intentmesh"], exp: Double? = now + 600,
    nbf: Double? = nil
  ) -> AccessTokenClaims {
    AccessTokenClaims(sub: sub, iss: iss, aud: aud, exp: exp, nbf: nbf, iat: now)
  }

  static func rejection(_ verifier: TokenVerifier, _ token: String) async -> TokenRejection? {
    do {
      _ = try await verifier.verify(Substring(token))
      return nil
    } catch {
      return error
    }
  }

  @Test("an ES256 token of the JWKS names its subject; the verified token is cached")
  func acceptsES256() async throws {
    let (verifier, _) = try await Self.verifier(keys: [Self.issuerKey])
    let token = try Self.issuer.sign(Self.claims())
    let caller = try await verifier.verify(Substring(token))
    #expect(caller.subject == "diana")
    #expect(verifier.cache.count == 1)
    #expect(try await verifier.verify(Substring(token)) == caller)
  }

  @Test("RS256 and EdDSA tokens verify against their JWKs")
  func acceptsRS256AndEdDSA() async throws {
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let primitives = try rsa.publicKey.getKeyPrimitives()
    let rsaJWK =
      #"{"kty":"RSA","kid":"rsa-1","alg":"RS256","n":"\#(Base64URL.encoded(primitives.modulus))","e":"\#(Base64URL.encoded(primitives.publicExponent))"}"#
    let ed = Curve25519.Signing.PrivateKey()
    let edJWK =
      #"{"kty":"OKP","crv":"Ed25519","kid":"ed-1","x":"\#(Base64URL.encoded(ed.publicKey.rawRepresentation))"}"#
    let (verifier, _) = try await Self.verifier(keys: [rsaJWK, edJWK])
    let payload = try JSONEncoder().encode(Self.claims(sub: "ezra"))
    let rsaToken = try LocalIssuer.compactJWS(header: #"{"alg":"RS256","kid":"rsa-1"}"#, payload: payload) {
      try rsa.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation
    }
    let edToken = try LocalIssuer.compactJWS(header: #"{"alg":"EdDSA","kid":"ed-1"}"#, payload: payload) {
      try ed.signature(for: $0)
    }
    #expect(try await verifier.verify(Substring(rsaToken)).subject == "ezra")
    #expect(try await verifier.verify(Substring(edToken)).subject == "ezra")
    // The RSA key cannot sign as EdDSA, nor the other way round.
    let crossed = try LocalIssuer.compactJWS(header: #"{"alg":"EdDSA","kid":"rsa-1"}"#, payload: payload) {
      try ed.signature(for: $0)
    }
    #expect(await Self.rejection(verifier, crossed)?.reason == "TOKEN_KEY_MISMATCH")
  }

  @Test("an RSA key that names no alg is RS256's: a token claiming RS512 cannot make it refuse the real ones")
  func rsaWithoutAlg() async throws {
    let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    let primitives = try rsa.publicKey.getKeyPrimitives()
    let jwk =
      #"{"kty":"RSA","kid":"entra-style","n":"\#(Base64URL.encoded(primitives.modulus))","e":"\#(Base64URL.encoded(primitives.publicExponent))"}"#
    let (verifier, _) = try await Self.verifier(keys: [jwk])
    let payload = try JSONEncoder().encode(Self.claims())
    let bait = LocalIssuer.compactJWS(header: #"{"alg":"RS512","kid":"entra-style"}"#, payload: payload) { _ in
      Data(repeating: 7, count: 256)
    }
    #expect(await Self.rejection(verifier, bait)?.reason == "TOKEN_KEY_MISMATCH")
    let real = try LocalIssuer.compactJWS(header: #"{"alg":"RS256","kid":"entra-style"}"#, payload: payload) {
      try rsa.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation
    }
    #expect(try await verifier.verify(Substring(real)).subject == "diana")
  }

  @Test("untrusted header values are shown short and printable")
  func shownValues() async throws {
    let (verifier, _) = try await Self.verifier(keys: [Self.issuerKey])
    let long = String(repeating: "k", count: 500) + "\u{7}"
    let token = try Self.issuer.sign(Self.claims(), keyID: long)
    let message = await Self.rejection(verifier, token)?.rpcErrorMessage ?? ""
    #expect(message.count < 200)
    #expect(!message.contains("\u{7}"))
  }

  @Test("alg none and HMAC keyed with the public key are refused before any key is used")
  func refusesNoneAndHMAC() async throws {
    let (verifier, _) = try await Self.verifier(keys: [Self.issuerKey])
    let payload = try JSONEncoder().encode(Self.claims())
    let none = LocalIssuer.compactJWS(header: #"{"alg":"none","kid":"\#(Self.issuer.keyID)"}"#, payload: payload) {
      _ in Data([0])
    }
    #expect(await Self.rejection(verifier, none) == .algorithmRefused("none"))
    // The classic confusion: the verifier's public key used as the HMAC secret.
    let publicKeyBytes = Data(Self.issuer.signingKey.publicKey.x963Representation)
    let hmac = LocalIssuer.compactJWS(header: #"{"alg":"HS256","kid":"\#(Self.issuer.keyID)"}"#, payload: payload) {
      Data(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: publicKeyBytes)))
    }
    #expect(await Self.rejection(verifier, hmac) == .algorithmRefused("HS256"))
  }

  @Test("each bad token is UNAUTHENTICATED with the reason that says which")
  func refusesBadTokens() async throws {
    let (verifier, _) = try await Self.verifier(keys: [Self.issuerKey])
    let stranger = LocalIssuer(signingKey: P256.Signing.PrivateKey())
    let cases: [(String, String)] = [
      ("not.a-jwt", "TOKEN_MALFORMED"),
      ("a.b", "TOKEN_MALFORMED"),
      ("!!!.e30.sig", "TOKEN_MALFORMED"),
      (try Self.issuer.sign(Self.claims(exp: Self.now - 120)), "TOKEN_EXPIRED"),
      (try Self.issuer.sign(Self.claims(exp: nil)), "TOKEN_EXPIRED"),
      (try Self.issuer.sign(Self.claims(nbf: Self.now + 120)), "TOKEN_NOT_YET_VALID"),
      (try Self.issuer.sign(Self.claims(iss: "https://evil.example")), "TOKEN_ISSUER_WRONG"),
      (try Self.issuer.sign(Self.claims(aud: ["another-api"])), "TOKEN_AUDIENCE_WRONG"),
      (try Self.issuer.sign(Self.claims(sub: "")), "TOKEN_SUBJECT_MISSING"),
      (try Self.issuer.sign(Self.claims(), keyID: "rotated-away"), "TOKEN_KEY_UNKNOWN"),
      // Signed by another key that claims this key's id: a forgery.
      (try stranger.sign(Self.claims(), keyID: Self.issuer.keyID), "TOKEN_SIGNATURE_INVALID"),
    ]
    for (token, reason) in cases {
      let rejection = await Self.rejection(verifier, token)
      #expect(rejection?.reason == reason, "\(token.prefix(40)): \(String(describing: rejection))")
      #expect(rejection?.rpcErrorCode == .unauthenticated)
    }
    // A token whose signature was tampered with after signing.
    var parts = try Self.issuer.sign(Self.claims()).split(separator: ".").map(String.init)
    parts[1] = Base64URL.encoded(try JSONEncoder().encode(Self.claims(sub: "mallory")))
    #expect(await Self.rejection(verifier, parts.joined(separator: ".")) == .badSignature)
    #expect(verifier.cache.count == 0)
  }

  @Test("exp and nbf have a 30 s leeway, and a cached token still expires")
  func leewayAndCachedExpiry() async throws {
    let clock = ManualSeconds(TokenVerifierTests.now)
    let (verifier, _) = try await Self.verifier(keys: [Self.issuerKey], clock: { clock.value })
    let token = try Self.issuer.sign(Self.claims(exp: Self.now - 20, nbf: Self.now + 20))
    #expect(try await verifier.verify(Substring(token)).subject == "diana")
    clock.value += 11
    #expect(await Self.rejection(verifier, token)?.reason == "TOKEN_EXPIRED")
  }

  @Test("a kid the JWKS does not hold makes the verifier read it again: a rotated-in key works at once")
  func unknownKeyRefreshes() async throws {
    let (verifier, file) = try await Self.verifier(keys: [Self.issuerKey])
    let next = LocalIssuer(signingKey: P256.Signing.PrivateKey())
    let token = try next.sign(Self.claims())
    #expect(await Self.rejection(verifier, token)?.reason == "TOKEN_KEY_UNKNOWN")
    try Data(next.jwks.utf8).write(to: file)
    #expect(try await verifier.verify(Substring(token)).subject == "diana")
    // The old key left the set: its tokens are no longer accepted, cached or not.
    #expect(await Self.rejection(verifier, try Self.issuer.sign(Self.claims()))?.reason == "TOKEN_KEY_UNKNOWN")
  }

  @Test("a JWKS without usable keys is refused; private, encryption and HMAC keys are skipped")
  func keySetParsing() async throws {
    let hmac = #"{"kty":"oct","kid":"h","k":"c2VjcmV0"}"#
    let encryption = Self.issuerKey.replacingOccurrences(of: #""use":"sig""#, with: #""use":"enc""#)
    await #expect(throws: KeySetError.self) {
      _ = try await VerificationKeySet.parse(Array(#"{"keys":[\#(hmac)]}"#.utf8))
    }
    await #expect(throws: KeySetError.self) { _ = try await VerificationKeySet.parse(Array("[]".utf8)) }
    let set = try await VerificationKeySet.parse(Array(#"{"keys":[\#(hmac),\#(encryption),\#(Self.issuerKey)]}"#.utf8))
    #expect(set.keys.count == 1)
    #expect(set.skipped.count == 2, "\(set.skipped)")
  }

  @Test("the authorization header: Bearer, once, not empty")
  func bearerHeader() throws {
    #expect(throws: TokenRejection.missing) { try BearerCredential.token(in: [:]) }
    #expect(throws: TokenRejection.self) { try BearerCredential.token(in: ["authorization": "Basic ZGlhbmE6cHc="]) }
    #expect(throws: TokenRejection.self) { try BearerCredential.token(in: ["authorization": "Bearer "]) }
    #expect(throws: TokenRejection.self) {
      try BearerCredential.token(in: ["authorization": "Bearer a", "authorization": "Bearer b"])
    }
    #expect(try BearerCredential.token(in: ["authorization": "bearer abc.def.ghi"]) == "abc.def.ghi")
  }

  @Test("the user is the token's subject: context.user_id empty or equal, anyone else is PERMISSION_DENIED")
  func userIdentity() throws {
    let named = { (user: String) in Intentmesh_V1_RequestContext.with { $0.userID = user } }
    #expect(throws: IntentMeshError.self) { try UserIdentity.userID(of: named("diana")) }
    try VerifiedCaller.$current.withValue(VerifiedCaller(subject: "diana", expiresAt: .infinity)) {
      #expect(try UserIdentity.userID(of: named("")) == "diana")
      #expect(try UserIdentity.userID(of: named("diana")) == "diana")
      do {
        _ = try UserIdentity.userID(of: named("ezra"))
        Issue.record("another user's id was accepted")
      } catch let error as IntentMeshError {
        #expect(error.rpcErrorCode == .permissionDenied)
      }
    }
  }
}

/// A settable clock in seconds since 1970.
final class ManualSeconds: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: Double
  init(_ seconds: Double) { self.seconds = seconds }
  var value: Double {
    get { lock.withLock { seconds } }
    set { lock.withLock { seconds = newValue } }
  }
}
