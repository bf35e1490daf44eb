package import IntentMeshCore

extension TokenVerifier {
  /// The key set's generation now: it moves with every key set that differs from the one before.
  var keySetGeneration: Int { currentGeneration() }

  /// Returns why `token` stopped proving `caller` — it expired, or the key set changed and it no
  /// longer verifies (its key left the set) — checking every `interval` and at its expiry; runs
  /// until then, or until the task is cancelled (then nil). A stream runs beside it and ends when it
  /// returns (`StreamTrust`).
  package func untilDistrusted(
    _ token: Substring, caller: VerifiedCaller, interval: Duration = .seconds(1)
  ) async -> TokenRejection? {
    var caller = caller
    var generation = keySetGeneration
    while !Task.isCancelled {
      let left = caller.expiresAt - now()
      if left < 0 { return .expired("the token expired while its stream was open") }
      let wait = min(Duration.milliseconds(Int64((left * 1000).rounded(.up)) + 1), interval)
      do { try await Task.sleep(for: wait) } catch { return nil }
      let latest = keySetGeneration
      guard latest != generation else { continue }
      // Another key set: the token must verify against it, as a new call's would.
      generation = latest
      do throws(TokenRejection) {
        caller = try await verify(token)
      } catch {
        return error
      }
    }
    return nil
  }
}
