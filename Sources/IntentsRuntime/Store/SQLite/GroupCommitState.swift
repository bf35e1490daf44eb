/// Which commits of a store are durable, and who waits for which: the bookkeeping of group commit.
///
/// A transaction commits to the write-ahead log without waiting on the disk, and is numbered
/// (`commit()`). One sync of the log at a time makes durable every commit numbered before the sync
/// began; callers waiting for a later number wait for the next sync, which starts as soon as the
/// running one ends. So a sync covers every commit made while the previous one ran, and at most two
/// syncs ever stand between a commit and its answer.
///
/// `Waiter` is whatever the owner resumes (a continuation in `GroupCommit`, a plain value in tests).
struct GroupCommitState<Waiter> {
  private enum Phase {
    /// No sync is running.
    case idle
    /// A sync is running that covers commits up to `through`.
    case syncing(through: UInt64)
    /// A sync failed: what was committed may not be on the disk, and nothing is acknowledged again.
    case failed(any Error)
  }

  /// What a caller does after asking to wait for a commit.
  enum WaitAction {
    /// The commit is durable already.
    case durable
    /// A sync failed; the commit cannot be promised.
    case fail(any Error)
    /// The caller waits; when `startSync` has a value, the caller starts a sync covering commits up
    /// to it.
    case wait(startSync: UInt64?)
  }

  /// What the owner does when a sync ends.
  struct SyncEnded {
    /// Waiters whose commits the sync covered (or, after a failure, every waiter).
    var resume: [Waiter]
    /// A sync to start now for the waiters left, covering commits up to this number.
    var startSync: UInt64?
  }

  /// The number of the last commit.
  private(set) var committed: UInt64 = 0
  /// Every commit up to this number is durable.
  private(set) var durable: UInt64 = 0
  /// How many syncs have ended well: commits per sync is how much group commit saves.
  private(set) var syncs: UInt64 = 0
  private var phase = Phase.idle
  private var waiting: [(sequence: UInt64, waiter: Waiter)] = []

  /// Numbers a commit that has just returned from SQLite.
  mutating func commit() -> UInt64 {
    committed += 1
    return committed
  }

  /// Whether commit `sequence` is durable, with no waiting.
  func isDurable(_ sequence: UInt64) -> Bool {
    if case .failed = phase { return false }
    return sequence <= durable
  }

  /// Asks for `waiter` to be resumed once commit `sequence` is durable.
  mutating func wait(for sequence: UInt64, _ waiter: Waiter) -> WaitAction {
    switch phase {
    case .failed(let error):
      return .fail(error)
    case _ where sequence <= durable:
      return .durable
    case .syncing:
      // The running sync may have begun before this commit: wait for the next one.
      waiting.append((sequence, waiter))
      return .wait(startSync: nil)
    case .idle:
      waiting.append((sequence, waiter))
      phase = .syncing(through: committed)
      return .wait(startSync: committed)
    }
  }

  /// The running sync ended, and every commit it covers is on the disk.
  mutating func syncSucceeded() -> SyncEnded {
    guard case .syncing(let through) = phase else { return SyncEnded(resume: [], startSync: nil) }
    durable = max(durable, through)
    syncs += 1
    var resume: [Waiter] = []
    var left: [(sequence: UInt64, waiter: Waiter)] = []
    for entry in waiting {
      if entry.sequence <= durable { resume.append(entry.waiter) } else { left.append(entry) }
    }
    waiting = left
    guard !waiting.isEmpty else {
      phase = .idle
      return SyncEnded(resume: resume, startSync: nil)
    }
    phase = .syncing(through: committed)
    return SyncEnded(resume: resume, startSync: committed)
  }

  /// The running sync failed: the store can no longer say what is on the disk, so every waiter
  /// and every later caller gets `error`.
  mutating func syncFailed(_ error: any Error) -> SyncEnded {
    phase = .failed(error)
    let resume = waiting.map(\.waiter)
    waiting = []
    return SyncEnded(resume: resume, startSync: nil)
  }
}
