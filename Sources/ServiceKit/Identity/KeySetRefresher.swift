package import ServiceLifecycle

/// Fetches the JWKS again on a schedule until graceful shutdown, so that keys a provider adds or
/// retires take effect without a restart.
package struct KeySetRefresher: Service {
  package let verifier: TokenVerifier
  package let interval: Duration

  package init(verifier: TokenVerifier, interval: Duration) {
    self.verifier = verifier
    self.interval = interval
  }

  package func run() async throws {
    await cancelWhenGracefulShutdown {
      while !Task.isCancelled {
        do { try await Task.sleep(for: interval) } catch { return }
        await verifier.refresh()
      }
    }
  }
}
