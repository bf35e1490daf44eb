internal import IntentsKit
internal import SQLKit
internal import Synchronization

/// What one transaction of `PostgresStore` has read and written, for its read cache: the tables
/// each statement names (`StatementScope`), gathered for the cached reads loading around it and,
/// for the ones that write, remembered as changed when the transaction ends.
final class PostgresTransactionScope: Sendable {
  /// The count of changes when the transaction began and the schema's tables (`PostgresReadCache.begin`);
  /// nil when the cache could not be used.
  let start: (generation: UInt64, tables: Set<String>)?
  /// The schema's tables, once known (`PostgresReadCache.tables`), whether or not the cache is used.
  let knownTables: Set<String>?
  /// When kept values may answer this transaction's cached reads.
  let reuse: Reuse

  /// When kept values may answer a transaction's cached reads.
  enum Reuse: Sendable {
    /// Never: a `.serialized` write decides on what every replica has committed.
    case never
    /// Whenever the cache holds them: a `.concurrent` write checks what it relies on itself.
    case whenKept
    /// Once a barrier sent after the transaction's first cached read has been heard: a read sees
    /// every write committed before it, on any replica.
    case afterBarrier(ChangeBarrier)
  }

  private struct State {
    var written: Set<String> = []
    /// The tables read by each cached read loading now, innermost last; nil for one that read
    /// something the cache cannot follow.
    var loads: [Set<String>?] = []
    /// Whether the barrier has been passed (nil: not yet waited for).
    var barrierPassed: Bool?
    /// The transaction's BEGIN, until it is sent with the first statement (nil once sent).
    var begin: String?
    /// Whether the BEGIN was sent.
    var begun = false
    /// Writes queued to go with a later statement (`writeLater`), and the tables they name.
    var later: [SQLQueryString] = []
    var laterTables: Set<String> = []
  }

  private let state = Mutex(State())

  init(start: (generation: UInt64, tables: Set<String>)?, knownTables: Set<String>?, reuse: Reuse) {
    self.start = start
    self.knownTables = knownTables
    self.reuse = reuse
  }

  /// Queues `statement` (whose text is `text`) to go with a later statement; false when the
  /// schema's tables are not known, and so which statements it must precede: run it now.
  func queueLater(_ statement: SQLQueryString, text: String) -> Bool {
    guard let knownTables else { return false }
    let scope = StatementScope(of: text, knownTables: knownTables)
    guard !scope.namesNoTable else { return false }
    state.withLock { state in
      state.written.formUnion(scope.tables)
      state.later.append(statement)
      state.laterTables.formUnion(scope.tables)
    }
    return true
  }

  /// The queued writes, taken off the queue, and whether they can go with the statement `text`
  /// (one that names none of their tables, and that writes can join); empty when none are queued.
  func takeLater(before text: String?) -> (writes: [SQLQueryString], together: Bool) {
    state.withLock { state in
      guard !state.later.isEmpty else { return ([], false) }
      let writes = state.later
      var together = false
      if let text, let knownTables, StatementsTogether.canJoin(text) {
        let scope = StatementScope(of: text, knownTables: knownTables)
        together = scope.tables.allSatisfy { !state.laterTables.contains($0) }
      }
      state.later.removeAll()
      state.laterTables.removeAll()
      return (writes, together)
    }
  }

  /// Whether kept values may answer this transaction's cached reads now; waits for the barrier
  /// the first time, when there is one.
  func mayReuse() async -> Bool {
    switch reuse {
    case .never: return false
    case .whenKept: return true
    case .afterBarrier(let barrier):
      if let passed = state.withLock({ $0.barrierPassed }) { return passed }
      let passed = await barrier.passed()
      state.withLock { $0.barrierPassed = passed }
      return passed
    }
  }

  /// The tables this transaction's statements wrote (named, at least).
  var written: Set<String> { state.withLock { $0.written } }

  /// Holds `begin` back until the transaction's first statement: a read answered wholly from kept
  /// values sends nothing. (PostgreSQL takes a transaction's snapshot at its first statement, not
  /// at BEGIN, so nothing else moves.)
  func holdBegin(_ begin: String) {
    state.withLock { $0.begin = begin }
  }

  /// The BEGIN to send before the next statement, if it has not been sent.
  func takeBegin() -> String? {
    state.withLock { state in
      guard let begin = state.begin else { return nil }
      state.begin = nil
      state.begun = true
      return begin
    }
  }

  /// Whether a statement — the BEGIN first — has been sent: there is a transaction to end.
  var begun: Bool { state.withLock { $0.begun } }

  /// Whether writes are queued to go with a later statement.
  var hasLater: Bool { state.withLock { !$0.later.isEmpty } }

  /// Whether a statement of this transaction has written.
  var hasWritten: Bool { state.withLock { !$0.written.isEmpty } }

  /// Notes a statement about to run.
  func run(_ text: String) {
    guard let tables = knownTables else { return }
    let scope = StatementScope(of: text, knownTables: tables)
    state.withLock { state in
      if scope.writes { state.written.formUnion(scope.tables) }
      read(scope.namesNoTable && !scope.writes ? nil : Set(scope.tables), in: &state)
    }
  }

  /// A cached read answered from what was kept: its tables count as read by the loads around it.
  func reuse(_ tables: [String]) {
    state.withLock { read(Set(tables), in: &$0) }
  }

  func startLoad() {
    state.withLock { $0.loads.append([]) }
  }

  /// The tables the load that started last read, sorted; nil when it read something the cache
  /// cannot follow. They count as read by the load around it.
  func endLoad() -> [String]? {
    state.withLock { state in
      guard let tables = state.loads.popLast() else { return nil }
      read(tables, in: &state)
      return tables?.sorted()
    }
  }

  /// `tables` (nil: something the cache cannot follow) count as read by the innermost load, which
  /// passes them out to the one around it when it ends.
  private func read(_ tables: Set<String>?, in state: inout State) {
    guard let innermost = state.loads.indices.last else { return }
    if let tables {
      state.loads[innermost]?.formUnion(tables)
    } else {
      state.loads[innermost] = nil
    }
  }
}
