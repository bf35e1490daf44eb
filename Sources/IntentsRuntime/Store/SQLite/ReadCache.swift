internal import IntentsKit
internal import Synchronization

/// What one SQLite connection's transactions read and may reuse (`ReadCachingDatabase`): values by
/// key, each with what it was read from — the tables its statements read, at the versions the
/// store's triggers keep for them (`TableVersioning`). A value is reused while none of its tables
/// has moved, so a write to one table leaves the values read from others in place. A value that
/// read a table without a version (one created outside the schema's migrations) is kept only while
/// the whole database is where it was (`Stamp`).
final class ReadCache: Sendable {
  /// Where the database is: SQLite's data version on this connection (it moves when another
  /// connection, in this process or another, commits) and this connection's count of changed rows
  /// (it moves with each of its own writes, committed or not).
  struct Stamp: Equatable, Sendable {
    let dataVersion: Int64
    let changes: Int64
  }

  /// The store as one transaction sees it: its stamp, the version of each versioned table, and the
  /// schema's version under `TableVersioning.schema`.
  struct View: Sendable {
    let stamp: Stamp
    let versions: [String: Int64]
  }

  private struct Entry {
    let value: any Sendable
    /// The schema, then the tables the value was read from (sorted): what must not have moved for
    /// the value to hold.
    let dependencies: [String]
    /// Each dependency's version when the value was read; empty when one of them has none.
    let versions: [Int64]
    /// Set when a dependency has no version: the value holds only at this stamp.
    let stamp: Stamp?

    /// The tables the value was read from.
    var tables: ArraySlice<String> { dependencies.dropFirst() }

    func isCurrent(in view: View) -> Bool {
      if let stamp { return stamp == view.stamp }
      for (name, version) in zip(dependencies, versions) where view.versions[name] != version { return false }
      return true
    }
  }

  private struct State {
    var entries: [ReadCacheKey: Entry] = [:]
    /// The table versions read last, and the stamp they were read at: while the stamp holds,
    /// nothing has been written and they need not be read again.
    var versions: (stamp: Stamp, versions: [String: Int64])?
  }

  /// Most values kept; past it the cache starts again empty.
  static let capacity = 512
  private let state = Mutex(State())

  /// A value kept, and the tables it was read from.
  struct Kept {
    let value: any Sendable
    let tables: ArraySlice<String>
  }

  /// The value kept under `key` that is still current in `view`. Not generic in the value's type:
  /// cached reads reach here unspecialized, where an optional of a generic value costs a lookup in
  /// the runtime's metadata cache; the caller checks the type (`SQLiteLaneDatabase.cachedRead`).
  func kept(_ key: ReadCacheKey, in view: View) -> Kept? {
    state.withLock { state in
      guard let entry = state.entries[key], entry.isCurrent(in: view) else { return nil }
      return Kept(value: entry.value, tables: entry.tables)
    }
  }

  /// Keeps `value`, read in `view` from `tables` — and from the schema they are in
  /// (`TableVersioning.schema`), which moves when a table is altered, dropped or made anew.
  func keep(_ value: any Sendable, for key: ReadCacheKey, readFrom tables: [String], in view: View) {
    let dependencies = [TableVersioning.schema] + tables
    let versions = dependencies.compactMap { view.versions[$0] }
    let versioned = versions.count == dependencies.count
    let entry = Entry(
      value: value, dependencies: dependencies, versions: versioned ? versions : [],
      stamp: versioned ? nil : view.stamp)
    state.withLock { state in
      if state.entries.count >= Self.capacity, state.entries[key] == nil {
        state.entries.removeAll(keepingCapacity: true)
      }
      state.entries[key] = entry
    }
  }

  /// The table versions remembered for `stamp`, if they were read at it.
  func versions(at stamp: Stamp) -> [String: Int64]? {
    state.withLock { state in
      guard let known = state.versions, known.stamp == stamp else { return nil }
      return known.versions
    }
  }

  /// Remembers the table versions read at `stamp`.
  func remember(_ versions: [String: Int64], at stamp: Stamp) {
    state.withLock { $0.versions = (stamp, versions) }
  }

  /// Drops every value and the remembered versions: a rolled-back transaction may have kept what
  /// its own writes showed, and its versions go back with it (a stamp does not).
  func clear() {
    state.withLock { state in
      state.entries.removeAll()
      state.versions = nil
    }
  }

  /// How many values are kept (for tests).
  var count: Int { state.withLock { $0.entries.count } }
}
