internal import Foundation
internal import Synchronization

/// Makes identifiers for stored records. Live services use random UUIDs; tests use a sequence.
package protocol IdentifierGenerator: Sendable {
  func next() -> String
}

/// Random, lower-case UUIDs.
package struct UUIDIdentifierGenerator: IdentifierGenerator {
  package init() {}
  package func next() -> String { UUID().uuidString.lowercased() }
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
