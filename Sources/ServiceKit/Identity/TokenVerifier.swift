#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import JWTKit
package import Logging
internal import Synchronization
package import IntentMeshCore

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
    /// Bumped by every key set that differs from the one before; cached tokens of older ones are void.
    var generation = 0
    /// When the last reload started: an unknown kid starts one at most every `unknownKeyRefreshInterval`.
    var lastLoad: Double = -.infinity
    /// Reloads started and installed, so that a slow older one never replaces a newer one.
    var started = 0
    var installed = 0
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

  /// The generation of the key set installed now.
  func currentGeneration() -> Int { state.withLock { $0.generation } }

  /// Loads the JWKS; a service calls it before it serves and refuses to start when it throws.
  func loadKeys() async throws {
    let ticket = state.withLock { state in
      state.started += 1
      state.lastLoad = now()
      return state.started
    }
    install(try await VerificationKeySet.parse(try await source.load()), ticket: ticket)
  }

  /// Loads the JWKS again; on failure the keys already loaded stay in use.
  package func refresh() async {
    let ticket = state.withLock { state in
      state.started += 1
      state.lastLoad = now()
      return state.started
    }
    await reload(ticket: ticket)
  }

  private func reload(ticket: Int) async {
    do {
      install(try await VerificationKeySet.parse(try await source.load()), ticket: ticket)
    } catch {
      let message = "\(error)"
      state.withLock { $0.lastError = message }
      logger.warning("JWKS refresh from \(source) failed; keeping the keys loaded before: \(message)")
    }
  }

  private func install(_ keys: VerificationKeySet, ticket: Int) {
    let changed = state.withLock { state -> Bool in
      // A reload that started before the one installed last brings older keys: drop it.
      guard ticket > state.installed else { return false }
      state.installed = ticket
      state.lastError = nil
      guard state.keys?.document != keys.document else { return false }
      state.keys = keys
      // Any change — a key gone, new material under a kid — voids what the old set vouched for.
      state.generation += 1
      return true
    }
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
    let generation = state.withLock { $0.generation }
    if let cached = cache.caller(of: token, now: now, generation: generation) { return cached }
    let parsed = try CompactToken(token)
    guard let keyID = parsed.keyID, !keyID.isEmpty else { throw .unknownKey("the token's header names no kid") }
    let (keys, key, keysGeneration) = try await key(keyID)
    let shownID = TokenRejection.shown(keyID)
    guard parsed.algorithm.fits(keyType: key.keyType, curve: key.curve) else {
      throw .keyMismatch("alg \(parsed.algorithm.rawValue) cannot use the \(key.keyType) key \(shownID)")
    }
    if let pinned = key.algorithm, pinned != parsed.algorithm.rawValue {
      throw .keyMismatch("key \(shownID) is for \(pinned), the token says \(parsed.algorithm.rawValue)")
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
    // Cached under the key set that verified it: a newer set never serves it.
    cache.insert(caller, for: token, now: now, generation: keysGeneration)
    return caller
  }

  /// The key set and the key with `keyID`, fetching the JWKS again when the id is new to it.
  private func key(_ keyID: String) async throws(TokenRejection) -> (VerificationKeySet, VerificationKeySet.Key, Int) {
    // Whether this call may start a reload is decided under the lock that records it: a burst of
    // unknown kids starts one fetch, not one each.
    let (current, generation, ticket) = state.withLock { state -> (VerificationKeySet?, Int, Int?) in
      if let keys = state.keys, keys.keys[keyID] != nil { return (keys, state.generation, nil) }
      guard now() - state.lastLoad >= unknownKeyRefreshInterval else { return (state.keys, state.generation, nil) }
      state.started += 1
      state.lastLoad = now()
      return (state.keys, state.generation, state.started)
    }
    if let current, let key = current.keys[keyID] { return (current, key, generation) }
    if let ticket { await reload(ticket: ticket) }
    let (keys, lastError, latest) = state.withLock { ($0.keys, $0.lastError, $0.generation) }
    guard let keys else { throw .keysUnavailable(lastError ?? "the JWKS has not loaded") }
    guard let key = keys.keys[keyID] else {
      throw .unknownKey("kid \"\(TokenRejection.shown(keyID))\" is not in the JWKS")
    }
    return (keys, key, latest)
  }
}
