/// Where one shared SQLite transaction of `SQLiteStore` stands, and who waits for its end: the
/// bookkeeping of a write batch.
///
/// Write transactions that queue for the writer while another runs share its SQLite transaction:
/// each after the first runs inside a savepoint of it, one after another, and the last one commits
/// for all. So a batch of writes pays one `COMMIT` — one write of each page they touched to the log
/// — instead of one each. A member whose work failed is rolled back to its savepoint and leaves;
/// the others stay (the first, which has no savepoint, fails the batch: it holds nothing else). A member whose work succeeded waits for the batch to end: committed (with the number
/// `GroupCommit` gave the commit, nil for a store without a disk), or failed, when the commit
/// failed or SQLite rolled the whole transaction back — then no member's work happened.
///
/// `Waiter` is whatever the owner resumes (a continuation in `WriteBatch`, a plain value in tests).
struct WriteBatchState<Waiter> {
  enum Phase {
    /// The transaction is open; `members` have entered it so far (joined or left).
    case open(members: Int)
    /// It committed, as commit `sequence`.
    case committed(sequence: UInt64?)
    /// It ended without its work: nothing any member did happened.
    case failed(any Error)
  }

  /// What a member that finished its work does next.
  enum WaitAction {
    /// The batch committed already.
    case committed(sequence: UInt64?)
    /// The batch failed.
    case fail(any Error)
    /// The member waits for the batch to end.
    case wait
  }

  private(set) var phase = Phase.open(members: 0)
  /// Members whose work succeeded: the batch's commit is theirs.
  private(set) var joined = 0
  private var waiting: [Waiter] = []

  /// Whether members can still enter.
  var isOpen: Bool {
    if case .open = phase { return true }
    return false
  }

  /// How many members have entered, whatever became of their work.
  var members: Int {
    switch phase {
    case .open(let members): members
    case .committed, .failed: 0
    }
  }

  /// A member starts its work in the batch.
  mutating func enter() {
    guard case .open(let members) = phase else {
      preconditionFailure("a write entered a batch that has ended")
    }
    phase = .open(members: members + 1)
  }

  /// A member's work succeeded: it will be committed with the batch's.
  mutating func join() {
    joined += 1
  }

  /// Asks for `waiter` to be resumed when the batch ends.
  mutating func wait(_ waiter: Waiter) -> WaitAction {
    switch phase {
    case .committed(let sequence): return .committed(sequence: sequence)
    case .failed(let error): return .fail(error)
    case .open:
      waiting.append(waiter)
      return .wait
    }
  }

  /// The batch committed; returns the members to resume.
  mutating func commit(sequence: UInt64?) -> [Waiter] {
    end(.committed(sequence: sequence))
  }

  /// The batch ended without its work; returns the members to resume with `error`.
  mutating func fail(_ error: any Error) -> [Waiter] {
    end(.failed(error))
  }

  private mutating func end(_ ending: Phase) -> [Waiter] {
    guard case .open = phase else { return [] }
    phase = ending
    defer { waiting = [] }
    return waiting
  }
}
