internal import Synchronization

/// Counts the connections the relay serves, all event loops together, and refuses those past the
/// limit as they are accepted (before a byte of theirs is read).
final class RelayConnectionGate: Sendable {
  let limit: Int
  private let open = Atomic<Int>(0)
  private let refused = Atomic<Int>(0)

  init(limit: Int) {
    self.limit = limit
  }

  /// Takes a place for a new connection; false when all are taken.
  func admit() -> Bool {
    guard open.add(1, ordering: .relaxed).newValue > limit else { return true }
    open.subtract(1, ordering: .relaxed)
    refused.add(1, ordering: .relaxed)
    return false
  }

  /// Gives back the place of a connection that closed.
  func release() {
    open.subtract(1, ordering: .relaxed)
  }

  /// Connections open now.
  var openConnections: Int { open.load(ordering: .relaxed) }
  /// Connections refused since start.
  var refusedConnections: Int { refused.load(ordering: .relaxed) }
}
