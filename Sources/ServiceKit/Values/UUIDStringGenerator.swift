internal import IntentMeshCore
internal import Synchronization

/// New identifiers in the shape of a random UUID ("8-4-4-4-12" lowercase hex, version 4), made
/// without a system call: a xoshiro256** generator seeded once from the system's random source.
/// Foundation's `UUID()` opens and reads /dev/urandom for every id, three system calls on each relayed
/// call. For what only names or correlates — request ids, interaction identifiers — not for
/// secrets, nor for stored records' identifiers (`UUIDIdentifierGenerator`): a run of its output
/// tells what comes next.
package final class UUIDStringGenerator: Sendable {
  /// The generator every server in the process shares.
  package static let shared = UUIDStringGenerator()

  private let state: Mutex<Xoshiro256StarStar>

  package init() {
    var system = SystemRandomNumberGenerator()
    state = Mutex(Xoshiro256StarStar(seed: system))
  }

  /// A new id, e.g. "3f2b8c1e-9a4d-4c7e-b5a1-0d6e2f4a8b9c".
  package func next() -> String {
    let (high, low) = state.withLock { generator in (generator.next(), generator.next()) }
    return UUIDText.version4(high: high, low: low)
  }
}

/// xoshiro256** (Blackman and Vigna): fast, 256 bits of state, passes the usual statistical tests.
struct Xoshiro256StarStar: RandomNumberGenerator {
  private var s0: UInt64
  private var s1: UInt64
  private var s2: UInt64
  private var s3: UInt64

  init(seed source: some RandomNumberGenerator) {
    var source = source
    repeat {
      (s0, s1, s2, s3) = (source.next(), source.next(), source.next(), source.next())
    } while s0 | s1 | s2 | s3 == 0
  }

  mutating func next() -> UInt64 {
    let result = (s1 &* 5).rotatedLeft(by: 7) &* 9
    let t = s1 << 17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = s3.rotatedLeft(by: 45)
    return result
  }
}

extension UInt64 {
  fileprivate func rotatedLeft(by count: UInt64) -> UInt64 {
    (self << count) | (self >> (64 - count))
  }
}
