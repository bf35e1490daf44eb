internal import Synchronization
package import IntentMeshCore

/// Tokens that passed every check, until they expire: a call with a known token costs one dictionary
/// lookup, not a signature check. Bounded: when full, expired entries go first, then a quarter of the
/// rest, so a flood of distinct valid tokens costs memory up to `capacity` and no more.
package final class VerifiedTokenCache: Sendable {
  package let capacity: Int
  private let entries: Mutex<[String: (caller: VerifiedCaller, generation: Int)]>

  package init(capacity: Int = 10_000) {
    precondition(capacity > 0)
    self.capacity = capacity
    self.entries = Mutex([:])
  }

  /// The caller of `token` if it was verified with the key set of `generation` and has not expired
  /// at `now`.
  package func caller(of token: Substring, now: Double, generation: Int = 0) -> VerifiedCaller? {
    // Only ASCII is looked up: `String ==` is canonical equivalence, and a token with a KELVIN SIGN
    // for its K would be the key of the token with the K. A JWT is ASCII; any other text goes on to
    // the verifier, which refuses it.
    guard Self.isASCII(token) else { return nil }
    let key = String(token)
    return entries.withLock { entries in
      guard let entry = entries[key] else { return nil }
      guard now <= entry.caller.expiresAt, entry.generation == generation else {
        entries[key] = nil
        return nil
      }
      return entry.caller
    }
  }

  package func insert(_ caller: VerifiedCaller, for token: Substring, now: Double, generation: Int = 0) {
    guard Self.isASCII(token) else { return }
    let key = String(token)
    entries.withLock { entries in
      if entries.count >= capacity {
        entries = entries.filter { now <= $0.value.caller.expiresAt }
        if entries.count >= capacity {
          for key in entries.keys.prefix(max(1, capacity / 4)) { entries[key] = nil }
        }
      }
      entries[key] = (caller, generation)
    }
  }

  /// Forgets every token: the keys that verified them changed.
  package func removeAll() {
    entries.withLock { $0.removeAll() }
  }

  package var count: Int { entries.withLock { $0.count } }

  /// ASCII text equals another text only when their bytes are equal.
  static func isASCII(_ token: Substring) -> Bool {
    token.utf8.allSatisfy { $0 < 0x80 }
  }
}
