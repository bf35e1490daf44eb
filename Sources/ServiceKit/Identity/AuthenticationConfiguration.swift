package import Logging

/// How a service checks bearer tokens: where the JWKS is, what the tokens must say, how often the
/// keys are fetched again.
package struct AuthenticationConfiguration: Sendable, Equatable {
  package var keySet: KeySetSource
  package var policy: TokenPolicy
  package var refreshInterval: Duration

  package init(keySet: KeySetSource, policy: TokenPolicy, refreshInterval: Duration = .seconds(600)) {
    self.keySet = keySet
    self.policy = policy
    self.refreshInterval = refreshInterval
  }

  /// A verifier with the keys loaded; throws (and the service does not start) when they cannot be.
  package func makeVerifier(logger: Logger) async throws -> TokenVerifier {
    let verifier = TokenVerifier(source: keySet, policy: policy, logger: logger)
    do {
      try await verifier.loadKeys()
    } catch {
      throw KeySetError.unreadable("JWKS \(keySet): \(error)")
    }
    return verifier
  }
}
