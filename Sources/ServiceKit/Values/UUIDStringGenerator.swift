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
  private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

  package init() {
    var system = SystemRandomNumberGenerator()
    state = Mutex(Xoshiro256StarStar(seed: system))
  }

  /// A new id, e.g. "3f2b8c1e-9a4d-4c7e-b5a1-0d6e2f4a8b9c".
  package func next() -> String {
    let (high, low) = state.withLock { generator in (generator.next(), generator.next()) }
    // Version 4 in the 13th hex digit, the RFC 4122 variant in the 17th.
    let versioned = (high & ~0xF000) | 0x4000
    let varied = (low & ~(0xC000 << 48)) | (0x8000 << 48)
    return String(unsafeUninitializedCapacity: 36) { buffer in
      var position = 0
      func put(_ value: UInt64, digits: Int) {
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
          buffer[position] = Self.hexDigits[Int((value >> UInt64(shift)) & 0xF)]
          position += 1
        }
      }
      func dash() {
        buffer[position] = UInt8(ascii: "-")
        position += 1
      }
      put(versioned >> 32, digits: 8)
      dash()
      put((versioned >> 16) & 0xFFFF, digits: 4)
      dash()
      put(versioned & 0xFFFF, digits: 4)
      dash()
      put(varied >> 48, digits: 4)
      dash()
      put(varied & 0xFFFF_FFFF_FFFF, digits: 12)
      return position
    }
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
