package import Foundation
package import GRPCCore
internal import IntentMeshProtos
internal import IntentMeshCore
internal import Logging
package import ServiceKit
internal import Synchronization

/// The identity provider of a test process: one local key pair, its JWKS in a temporary folder, and a
/// token for any user. Servers under test verify with it exactly as a deployed service does.
package enum TestIdentity {
  /// A data folder as `intentmesh up` keeps one: the identity in its `identity` folder (`--data` of the CLI).
  package static let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
    "intentmesh-test-data-\(ProcessInfo.processInfo.processIdentifier)")
  package static let directory = dataDirectory.appendingPathComponent("identity")
  package static let issuer: LocalIssuer = {
    do { return try LocalIssuer.loadOrCreate(in: directory) } catch {
      fatalError("the test identity cannot be written to \(directory.path): \(error)")
    }
  }()
  package static var jwksPath: String {
    _ = issuer
    return directory.appendingPathComponent(LocalIssuer.jwksFileName).path
  }
  package static var authentication: AuthenticationConfiguration {
    AuthenticationConfiguration(
      keySet: .file(jwksPath),
      policy: TokenPolicy(issuer: LocalIssuer.defaultIssuer, audience: LocalIssuer.defaultAudience))
  }
  /// Flags that point an executable under test at this JWKS.
  package static var serviceArguments: [String] { ["--jwks", jwksPath] }

  /// By user, byte for byte (`UserKey`): canonically equivalent ids are two users with two tokens.
  private static let tokens = Mutex<[UserKey: String]>([:])

  /// A valid token of `user`, the same one for the whole run (so servers verify it once).
  package static func token(for user: String) -> String {
    if let known = tokens.withLock({ $0[UserKey(user)] }) { return known }
    do {
      let minted = try issuer.token(subject: user, ttl: .seconds(6 * 3600))
      tokens.withLock { $0[UserKey(user)] = minted }
      return minted
    } catch {
      fatalError("cannot sign a test token: \(error)")
    }
  }

  /// `authorization: Bearer` metadata for `user`.
  package static func metadata(for user: String) -> Metadata {
    ["authorization": "Bearer \(token(for: user))"]
  }

  /// A verifier of this identity's tokens, keys loaded.
  package static func verifier() async throws -> TokenVerifier {
    var logger = Logger(label: "test.identity")
    logger.logLevel = .warning
    return try await authentication.makeVerifier(logger: logger)
  }

  /// The server interceptors of a service under test, authentication included, in a service's order.
  package static func serverInterceptors() async throws -> [any ServerInterceptor] {
    [RequestIDInterceptor(), AuthenticationInterceptor(verifier: try await verifier())]
  }
}
