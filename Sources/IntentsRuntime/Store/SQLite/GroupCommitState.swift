/// Which commits of a store are durable, and who waits for which: the bookkeeping of group commit.
///
/// A transaction commits to the write-ahead log without waiting on the disk. It is numbered just
/// before its `COMMIT` (`beginCommit()`) and marked ended just after (`commitEnded`): another
/// connection may see the commit as soon as SQLite makes it, so a read that ends meanwhile must
/// already find its number (`numbered`) to wait for. One sync of the log at a time makes durable
/// every commit that had ended before the sync began; callers waiting for a later number wait for
/// the next sync, which starts as soon as the running one ends — or, for a commit still being made,
/// as soon as it ends. So a sync covers every commit made while the previous one ran, and at most
/// two syncs ever stand between a commit and its answer.
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

  /// The number of the last commit begun: every commit a read may have seen has a number up to it.
  private(set) var numbered: UInt64 = 0
  /// The number of the last commit ended (at most one, `numbered`, is being made).
  private(set) var committed: UInt64 = 0
  /// Commits that ended well (a `COMMIT` that failed keeps its number: no read waits for ever).
  private(set) var made: UInt64 = 0
  /// Every commit up to this number is durable.
  private(set) var durable: UInt64 = 0
  /// How many syncs have ended well: commits per sync is how much group commit saves.
  private(set) var syncs: UInt64 = 0
  private var phase = Phase.idle
  private var waiting: [(sequence: UInt64, waiter: Waiter)] = []

  /// Numbers a commit about to be made (its `COMMIT` not yet run).
  mutating func beginCommit() -> UInt64 {
    numbered += 1
    return numbered
  }

  /// Commit `sequence`, begun last, has returned from SQLite (having failed, when not `succeeded`,
  /// with nothing to sync: the sync that covers it is no different). Returns the commits a sync
  /// is to cover when one is to start now: callers wait for it and none is running.
  mutating func commitEnded(_ sequence: UInt64, succeeded: Bool) -> UInt64? {
    committed = sequence
    if succeeded { made += 1 }
    guard case .idle = phase, waiting.contains(where: { $0.sequence <= committed }) else { return nil }
    phase = .syncing(through: committed)
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
      // A commit still being made: a sync now could not cover it; its end starts one.
      guard sequence <= committed else { return .wait(startSync: nil) }
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
    // Only a commit still being made left to wait for: its end starts the next sync.
    guard waiting.contains(where: { $0.sequence <= committed }) else {
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
