internal import IntentMeshCore
internal import Synchronization

/// Makes identifiers for stored records. Live services use random UUIDs; tests use a sequence.
package protocol IdentifierGenerator: Sendable {
  func next() -> String
}

/// Random, lower-case UUIDs (version 4) from the kernel's generator (`KernelRandomPool`).
package struct UUIDIdentifierGenerator: IdentifierGenerator {
  package init() {}

  package func next() -> String {
    let (high, low) = KernelRandomPool.shared.next128()
    return UUIDText.version4(high: high, low: low)
  }
}

/// "prefix-1", "prefix-2", …: predictable identifiers for tests.
final class SequentialIdentifierGenerator: IdentifierGenerator {
  private let counter = Mutex(0)
  private let prefix: String

  init(prefix: String = "id") {
    self.prefix = prefix
  }

  func next() -> String {
    let value = counter.withLock { count -> Int in
      count += 1
      return count
    }
    return "\(prefix)-\(value)"
  }
}
