internal import IntentsKit
internal import Synchronization

/// What a PostgreSQL store's transactions read and may reuse (`ReadCachingDatabase`), kept in one
/// replica and told of every change to the schema's tables — its own writes when they commit, any
/// other replica's by PostgreSQL's notifications (`PostgresChangeListener`, from the triggers
/// `ChangeNotifications` installs). Without a caught-up listener nothing is kept or reused.
///
/// Changes are counted: each one takes the next number (`generation`), and a table remembers the
/// number of its last change. A transaction notes the count when it begins — before its first
/// statement, so its snapshot holds every change counted by then — and a value it loads is kept
/// with that number: it holds while no table it was read from has changed since. A change
/// committed before the snapshot but heard after the note only drops a value that was current.
///
/// What one replica commits is counted before its write returns; what another commits is heard
/// when the notification arrives (on one host, well under a millisecond after the commit): in that
/// gap a read here can answer as of before that write. Writes that must decide on what every
/// replica has committed (`.serialized`) do not reuse kept values; `.concurrent` writes check what
/// they rely on by their own statements.
final class PostgresReadCache: Sendable {
  /// A value kept, and the tables it was read from.
  struct Kept {
    let value: any Sendable
    let tables: [String]
  }

  private struct Entry {
    let value: any Sendable
    let tables: [String]
    /// The count of changes when the transaction that read it began.
    let generation: UInt64
  }

  private struct State {
    var generation: UInt64 = 0
    /// The number of each table's last change.
    var changed: [String: UInt64] = [:]
    /// The number of the last change to everything (the listener lost or gained, the schema changed).
    var everythingChanged: UInt64 = 0
    /// The schema's tables, once known (`schemaDidChange`).
    var tables: Set<String>?
    /// Whether changes made by other replicas are being heard.
    var listening = false
    var entries: [ReadCacheKey: Entry] = [:]
  }

  /// Most values kept; past it the cache starts again empty.
  static let capacity = 4_096
  private let state = Mutex(State())

  /// What a transaction starting now may use: the count of changes and the schema's tables; nil
  /// while other replicas' changes are not heard or the tables are not known.
  func begin() -> (generation: UInt64, tables: Set<String>)? {
    state.withLock { state in
      guard state.listening, let tables = state.tables else { return nil }
      return (state.generation, tables)
    }
  }

  /// The schema's tables, once known.
  var tables: Set<String>? { state.withLock { $0.tables } }

  /// The value kept under `key`, if no table it was read from has changed since the transaction
  /// that read it began.
  func kept(_ key: ReadCacheKey) -> Kept? {
    state.withLock { state in
      guard state.listening, let entry = state.entries[key], entry.generation >= state.everythingChanged else {
        return nil
      }
      for table in entry.tables where state.changed[table, default: 0] > entry.generation { return nil }
      return Kept(value: entry.value, tables: entry.tables)
    }
  }

  /// Keeps `value`, read from `tables` by a transaction that began at `generation`.
  func keep(_ value: any Sendable, for key: ReadCacheKey, readFrom tables: [String], generation: UInt64) {
    state.withLock { state in
      guard state.listening else { return }
      if state.entries.count >= Self.capacity, state.entries[key] == nil {
        state.entries.removeAll(keepingCapacity: true)
      }
      state.entries[key] = Entry(value: value, tables: tables, generation: generation)
    }
  }

  /// `tables` have changed (a commit of this replica, or another's notification).
  func changed<Tables: Sequence<String>>(_ tables: Tables) {
    state.withLock { state in
      for table in tables {
        state.generation += 1
        state.changed[table] = state.generation
      }
    }
  }

  /// Everything may have changed: kept values are dropped and nothing kept is reused until
  /// `listening` is set again.
  func stopListening() {
    state.withLock { state in
      state.listening = false
      state.generation += 1
      state.everythingChanged = state.generation
      state.entries.removeAll()
    }
  }

  /// Other replicas' changes are heard from now on; what changed while they were not is unknown,
  /// so nothing read before counts.
  func startListening() {
    state.withLock { state in
      state.generation += 1
      state.everythingChanged = state.generation
      state.entries.removeAll()
      state.listening = true
    }
  }

  /// The schema's tables are `tables` (lower case), as migrations left them; nothing read before counts.
  func schemaChanged(tables: Set<String>) {
    state.withLock { state in
      state.generation += 1
      state.everythingChanged = state.generation
      state.entries.removeAll()
      state.changed.removeAll()
      state.tables = tables
    }
  }

  /// How many values are kept (for tests).
  var count: Int { state.withLock { $0.entries.count } }
}
