import Crypto
import Foundation
import IntentsKitTesting
import Logging
import NIOHTTP1
@testable import ServiceKit
@testable import IntentMeshCore
import Testing

/// Keys from an identity provider's `jwks_uri`, over HTTP: loaded at start, fetched again when a
/// token names a key the set does not hold (a rotation), and kept when a fetch fails.
@Suite("Identity: the JWKS from a URL", .serialized)
struct JWKSURLTests {
  static let now = Date().timeIntervalSince1970

  static func claims() -> AccessTokenClaims {
    AccessTokenClaims(
      sub: "diana", iss: LocalIssuer.defaultIssuer, aud: [LocalIssuer.defaultAudience], exp: now + 600, iat: now)
  }

  @Test("loaded from the URL; a rotated-in key is fetched on first sight; a failing fetch keeps the keys")
  func rotation() async throws {
    let first = LocalIssuer(signingKey: P256.Signing.PrivateKey())
    let server = try await JWKSServer(body: first.jwks)
    var logger = Logger(label: "test.jwks")
    logger.logLevel = .critical
    let verifier = TokenVerifier(
      source: try KeySetSource(parsing: server.url),
      policy: TokenPolicy(issuer: LocalIssuer.defaultIssuer, audience: LocalIssuer.defaultAudience),
      unknownKeyRefreshInterval: 0, logger: logger)
    try await verifier.loadKeys()
    #expect(server.fetches == 1)
    #expect(try await verifier.verify(Substring(try first.sign(Self.claims()))).subject == "diana")

    // The provider rotates: the new key's tokens make the verifier fetch again, once.
    let second = LocalIssuer(signingKey: P256.Signing.PrivateKey())
    server.serve(second.jwks)
    let rotated = try second.sign(Self.claims())
    #expect(try await verifier.verify(Substring(rotated)).subject == "diana")
    #expect(server.fetches == 2)
    #expect(try await verifier.verify(Substring(rotated)).subject == "diana")
    #expect(server.fetches == 2)

    // The provider fails: the keys loaded before stay, and an unknown key is still refused.
    server.serve("oops", status: .internalServerError)
    await verifier.refresh()
    #expect(try await verifier.verify(Substring(rotated)).subject == "diana")
    do {
      _ = try await verifier.verify(
        Substring(try LocalIssuer(signingKey: P256.Signing.PrivateKey()).sign(Self.claims())))
      Issue.record("a token of a key no JWKS ever held was accepted")
    } catch {
      #expect((error as? TokenRejection)?.reason == "TOKEN_KEY_UNKNOWN")
    }
    await server.stop()
  }

  @Test("plain http only to loopback; a file path or an https URL otherwise")
  func locations() throws {
    #expect(throws: KeySetError.self) { try KeySetSource(parsing: "http://keys.example.com/jwks.json") }
    #expect(try KeySetSource(parsing: "https://sso.example.com/certs") == .url("https://sso.example.com/certs"))
    #expect(try KeySetSource(parsing: "/etc/intentmesh/jwks.json") == .file("/etc/intentmesh/jwks.json"))
  }

  @Test(
    "the host is the URL parser's: user info that hides another host, another port's host or a loopback-looking name are refused",
    arguments: [
      "http://localhost:80@evil.example/jwks.json", "http://127.0.0.1@evil.example/jwks.json",
      "http://localhost.evil.example/jwks.json", "http://127.0.0.1.nip.io/jwks.json",
      "https://user:pass@sso.example.com/certs", "http:///jwks.json", "HTTP://evil.example/jwks.json",
      "http://[::2]/jwks.json",
    ])
  func hostileLocations(_ text: String) {
    #expect(throws: KeySetError.self, "\(text)") { try KeySetSource(parsing: text) }
  }

  @Test(
    "plain http to a loopback host, with a port and a path, by name, address or IPv6 literal",
    arguments: [
      "http://127.0.0.1:8080/jwks.json", "http://localhost/jwks.json", "http://[::1]:9/x", "HTTP://LOCALHOST/jwks",
    ])
  func loopbackLocations(_ text: String) throws {
    #expect(try KeySetSource(parsing: text) == .url(text))
  }
}
