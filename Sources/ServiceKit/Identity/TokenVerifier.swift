#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import JWTKit
package import Logging
internal import Synchronization

/// Verifies bearer tokens against a JWKS and a `TokenPolicy`: algorithm first (public-key ones only),
/// then a known `kid` whose key fits the algorithm, then the signature, then the claims. Verified
/// tokens are cached until they expire; an unknown `kid` makes it fetch the JWKS again (at most once
/// per `unknownKeyRefreshInterval`), as a provider that rotates its keys expects.
package final class TokenVerifier: Sendable {
  package let source: KeySetSource
  package let policy: TokenPolicy
  package let cache: VerifiedTokenCache
  /// Seconds since 1970.
  let now: @Sendable () -> Double
  let unknownKeyRefreshInterval: Double
  let logger: Logger

  private struct State: Sendable {
    var keys: VerificationKeySet?
    var lastLoad: Double = -.infinity
    var lastError: String?
  }
  private let state = Mutex(State())

  package init(
    source: KeySetSource, policy: TokenPolicy, cacheCapacity: Int = 10_000, unknownKeyRefreshInterval: Double = 10,
    logger: Logger, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 }
  ) {
    self.source = source
    self.policy = policy
    self.cache = VerifiedTokenCache(capacity: cacheCapacity)
    self.unknownKeyRefreshInterval = unknownKeyRefreshInterval
    self.logger = logger
    self.now = now
  }

  /// Loads the JWKS; a service calls it before it serves and refuses to start when it throws.
  package func loadKeys() async throws {
    let keys = try await VerificationKeySet.parse(try await source.load())
    install(keys)
  }

  /// Loads the JWKS again; on failure the keys already loaded stay in use.
  package func refresh() async {
    state.withLock { $0.lastLoad = now() }
    do {
      install(try await VerificationKeySet.parse(try await source.load()))
    } catch {
      let message = "\(error)"
      state.withLock { $0.lastError = message }
      logger.warning("JWKS refresh from \(source) failed; keeping the keys loaded before: \(message)")
    }
  }

  private func install(_ keys: VerificationKeySet) {
    let changed = state.withLock { state -> Bool in
      let changed = state.keys.map { Set($0.keys.keys) != Set(keys.keys.keys) } ?? true
      state.keys = keys
      state.lastLoad = now()
      state.lastError = nil
      return changed
    }
    // A key that left the set no longer vouches for the tokens it signed.
    if changed {
      cache.removeAll()
      logger.info(
        "JWKS from \(source): keys \(keys.keys.keys.sorted().joined(separator: ", "))\(keys.skipped.isEmpty ? "" : "; skipped \(keys.skipped.joined(separator: "; "))")"
      )
    }
  }

  /// The caller `token` proves, or why it proves nothing.
  package func verify(_ token: Substring) async throws(TokenRejection) -> VerifiedCaller {
    let now = now()
    if let cached = cache.caller(of: token, now: now) { return cached }
    let parsed = try CompactToken(token)
    guard let keyID = parsed.keyID, !keyID.isEmpty else { throw .unknownKey("the token's header names no kid") }
    let (keys, key) = try await key(keyID)
    guard parsed.algorithm.fits(keyType: key.keyType, curve: key.curve) else {
      throw .keyMismatch("alg \(parsed.algorithm.rawValue) cannot use the \(key.keyType) key \(keyID)")
    }
    if let pinned = key.algorithm, pinned != parsed.algorithm.rawValue {
      throw .keyMismatch("key \(keyID) is for \(pinned), the token says \(parsed.algorithm.rawValue)")
    }
    let claims: AccessTokenClaims
    do {
      claims = try await keys.collection.verify(Array(token.utf8), as: AccessTokenClaims.self)
    } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
      throw .badSignature
    } catch let error as JWTError where error.errorType == .malformedToken {
      throw .malformed("the token's parts do not decode")
    } catch is DecodingError {
      throw .malformed("the token's claims are not JSON of registered claims")
    } catch {
      throw .badSignature
    }
    let caller = try policy.caller(from: claims, now: now)
    cache.insert(caller, for: token, now: now)
    return caller
  }

  /// The key set and the key with `keyID`, fetching the JWKS again when the id is new to it.
  private func key(_ keyID: String) async throws(TokenRejection) -> (VerificationKeySet, VerificationKeySet.Key) {
    let (current, mayRefresh) = state.withLock { state in
      (state.keys, now() - state.lastLoad >= unknownKeyRefreshInterval)
    }
    if let current, let key = current.keys[keyID] { return (current, key) }
    if mayRefresh { await refresh() }
    let (keys, lastError) = state.withLock { ($0.keys, $0.lastError) }
    guard let keys else { throw .keysUnavailable(lastError ?? "the JWKS has not loaded") }
    guard let key = keys.keys[keyID] else { throw .unknownKey("kid \"\(keyID)\" is not in the JWKS") }
    return (keys, key)
  }
}
