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

  /// The store as one transaction sees it: its stamp, and the versions of its schema and of each
  /// versioned table.
  struct View: Sendable {
    let stamp: Stamp
    let versions: TableVersions
  }

  private struct Entry {
    let value: any Sendable
    /// The tables the value was read from (sorted).
    let tables: [String]
    /// The names `positions` point into; nil when one of the tables has no version.
    let names: TableVersions.Names?
    /// Where the schema and each table the value was read from are among `names`: what must not
    /// have moved for the value to hold.
    let positions: [Int]
    /// Their versions when the value was read.
    let versions: [Int64]
    /// Set when a table has no version: the value holds only at this stamp.
    let stamp: Stamp?

    func isCurrent(in view: View) -> Bool {
      if let stamp { return stamp == view.stamp }
      // Other names: the set of versioned tables has changed since; the value is read again.
      guard let names, names === view.versions.names else { return false }
      let current = view.versions.values
      for (position, version) in zip(positions, versions) where current[position] != version { return false }
      return true
    }
  }

  private struct State {
    var entries: [ReadCacheKey: Entry] = [:]
    /// The table versions read last, and the stamp they were read at: while the stamp holds,
    /// nothing has been written and they need not be read again.
    var versions: (stamp: Stamp, versions: TableVersions)?
  }

  /// Most values kept; past it the cache starts again empty.
  static let capacity = 512
  private let state = Mutex(State())

  /// A value kept, and the tables it was read from.
  struct Kept {
    let value: any Sendable
    let tables: [String]
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
    let entry: Entry
    if let positions = Self.positions(of: tables, in: view.versions.names) {
      entry = Entry(
        value: value, tables: tables, names: view.versions.names, positions: positions,
        versions: positions.map { view.versions.values[$0] }, stamp: nil)
    } else {
      entry = Entry(value: value, tables: tables, names: nil, positions: [], versions: [], stamp: view.stamp)
    }
    state.withLock { state in
      if state.entries.count >= Self.capacity, state.entries[key] == nil {
        state.entries.removeAll(keepingCapacity: true)
      }
      state.entries[key] = entry
    }
  }

  /// Where the schema, then each of `tables`, are among `names`; nil when one of them has no version.
  private static func positions(of tables: [String], in names: TableVersions.Names) -> [Int]? {
    guard let schema = names.positions[TableVersioning.schema] else { return nil }
    var positions = [schema]
    positions.reserveCapacity(tables.count + 1)
    for table in tables {
      guard let position = names.positions[table] else { return nil }
      positions.append(position)
    }
    return positions
  }

  /// The table versions remembered for `stamp`, if they were read at it.
  func versions(at stamp: Stamp) -> TableVersions? {
    state.withLock { state in
      guard let known = state.versions, known.stamp == stamp else { return nil }
      return known.versions
    }
  }

  /// The names of the table versions read last, at whatever stamp: a read that finds the same
  /// tables shares them.
  var lastNames: TableVersions.Names? {
    state.withLock { $0.versions?.versions.names }
  }

  /// Remembers the table versions read at `stamp`.
  func remember(_ versions: TableVersions, at stamp: Stamp) {
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
