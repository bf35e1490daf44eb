internal import Synchronization

/// One SQLite transaction that several write transactions of `SQLiteStore` share
/// (`WriteBatchState` says how); its members wait here for it to end.
final class WriteBatch: Sendable {
  private typealias Waiter = CheckedContinuation<UInt64?, any Error>

  private let state = Mutex(WriteBatchState<Waiter>())

  init() {}

  /// Whether members can still enter.
  var isOpen: Bool { state.withLock { $0.isOpen } }

  /// How many members have entered so far.
  var members: Int { state.withLock { $0.members } }

  /// How many members' work the batch carries.
  var joined: Int { state.withLock { $0.joined } }

  /// A member starts its work in the batch (the writer's lock held).
  func enter() {
    state.withLock { $0.enter() }
  }

  /// A member's work succeeded (the writer's lock held).
  func join() {
    state.withLock { $0.join() }
  }

  /// The batch committed as commit `sequence` (nil: a store without a disk).
  func commit(sequence: UInt64?) {
    for waiter in state.withLock({ $0.commit(sequence: sequence) }) { waiter.resume(returning: sequence) }
  }

  /// The batch ended without its work.
  func fail(_ error: any Error) {
    for waiter in state.withLock({ $0.fail(error) }) { waiter.resume(throwing: error) }
  }

  /// Returns the batch's commit number once it has committed; throws if it failed. Not
  /// cancellable: the member's work is in the batch, and whoever holds the writer's lock last ends it.
  func committed() async throws -> UInt64? {
    // The member that ended the batch finds it ended: no continuation.
    switch state.withLock({ $0.phase }) {
    case .committed(let sequence): return sequence
    case .failed(let error): throw error
    case .open: break
    }
    return try await withCheckedThrowingContinuation { (waiter: Waiter) in
      switch state.withLock({ $0.wait(waiter) }) {
      case .committed(let sequence): waiter.resume(returning: sequence)
      case .fail(let error): waiter.resume(throwing: error)
      case .wait: break
      }
    }
  }
}
