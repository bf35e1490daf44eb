internal import IntentsKit
internal import NIOPosix
internal import Synchronization

/// Group commit for `SQLiteStore`: transactions commit to the write-ahead log one after another
/// without waiting on the disk, and are answered only once a sync of the log (`WriteAheadLog`) that
/// began after their commit has ended — so many commits share each `fdatasync`, and none is
/// acknowledged before it is durable. The write lock is never held across a sync, so another
/// process writing to the same file waits no longer than one transaction.
///
/// Syncs run on a thread of their own, one at a time (`GroupCommitState` decides when).
final class GroupCommit: Sendable {
  private typealias Waiter = CheckedContinuation<Void, any Error>

  private let state = Mutex(GroupCommitState<Waiter>())
  private let log: WriteAheadLog
  private let thread: NIOThreadPool

  init(log: WriteAheadLog) {
    self.log = log
    thread = NIOThreadPool(numberOfThreads: 1)
    thread.start()
  }

  /// Numbers a commit about to be made; call it while holding the write lock, just before
  /// `COMMIT`, so that numbers follow the log's order and a read that sees the commit finds its
  /// number. `commitEnded` must follow, whatever `COMMIT` did.
  func beginCommit() -> UInt64 {
    state.withLock { $0.beginCommit() }
  }

  /// Commit `sequence` has returned from SQLite; starts the sync its readers wait for, if they do.
  func commitEnded(_ sequence: UInt64, succeeded: Bool) {
    if state.withLock({ $0.commitEnded(sequence, succeeded: succeeded) }) != nil { sync() }
  }

  /// Commits made, the last number known durable, syncs that made them so, and checkpoints that failed.
  var progress: SQLiteStore.Durability {
    var progress = state.withLock {
      SQLiteStore.Durability(writes: 0, commits: $0.made, durableCommits: $0.durable, syncs: $0.syncs)
    }
    progress.failedCheckpoints = UInt64(log.checkpointFailures)
    return progress
  }

  /// Returns once every commit begun so far (all a read may have seen, one perhaps still being
  /// made) is on the disk; one lock when they already are.
  func waitUntilCommittedAreDurable() async throws {
    let (last, durable) = state.withLock { ($0.numbered, $0.isDurable($0.numbered)) }
    if !durable { try await waitUntilDurable(last) }
  }

  /// Returns once commit `sequence` is on the disk; throws if a sync failed. Not cancellable: the
  /// commit has happened, and the wait is at most two syncs.
  func waitUntilDurable(_ sequence: UInt64) async throws {
    if state.withLock({ $0.isDurable(sequence) }) { return }
    try await withCheckedThrowingContinuation { (waiter: Waiter) in
      switch state.withLock({ $0.wait(for: sequence, waiter) }) {
      case .durable:
        waiter.resume()
      case .fail(let error):
        waiter.resume(throwing: error)
      case .wait(let startSync):
        if startSync != nil { sync() }
      }
    }
  }

  /// Runs the sync `GroupCommitState` asked for, then the next one if callers are left.
  private func sync() {
    thread.submit { [self] work in
      let ended: GroupCommitState<Waiter>.SyncEnded
      let failure: (any Error)?
      do {
        guard work == .active else { throw GroupCommitClosed() }
        try log.sync()
        ended = state.withLock { $0.syncSucceeded() }
        failure = nil
      } catch {
        ended = state.withLock { $0.syncFailed(error) }
        failure = error
      }
      for waiter in ended.resume {
        if let failure { waiter.resume(throwing: failure) } else { waiter.resume() }
      }
      if ended.startSync != nil { sync() }
    }
  }

  /// Makes the last commit durable, stops the sync thread and closes the log.
  func close() async throws {
    try? await waitUntilCommittedAreDurable()
    try await thread.shutdownGracefully()
    try await log.close()
  }
}

/// The store closed while a commit waited to be made durable.
struct GroupCommitClosed: Error, CustomStringConvertible {
  var description: String { "the store closed before the commit was synced to the disk" }
}
