internal import VaporCSQLite

/// The tables a `SQLiteHandle`'s statements read. SQLite names them to the connection's authorizer
/// while a statement is prepared (`SQLITE_READ`: every column read, tables under views and
/// subqueries included), so each prepared statement carries its tables; while a cached read loads
/// (`ReadCachingDatabase`), the tables of the statements it runs — and of the cached reads it
/// reuses — are gathered, innermost first, and handed to the reads around it too.
///
/// Not Sendable: it belongs to one connection, used by whoever holds that connection's lane.
final class TableReads {
  /// The tables named while a statement is being prepared; nil between preparations.
  private var preparing: Set<String>?
  /// What each cached read being loaded has read so far, the innermost last.
  private var loads: [Set<String>] = []

  /// Whether a cached read is loading.
  var isGathering: Bool { !loads.isEmpty }

  /// Starts collecting what SQLite names while preparing a statement.
  func startPreparing() {
    preparing = []
  }

  /// The tables named since `startPreparing`, sorted.
  func endPreparing() -> [String] {
    defer { preparing = nil }
    return (preparing ?? []).sorted()
  }

  /// Starts gathering for a cached read that loads.
  func startLoad() {
    loads.append([])
  }

  /// The tables the load started last read, sorted; they count as read by the loads around it too.
  func endLoad() -> [String] {
    let tables = loads.removeLast()
    if !loads.isEmpty { loads[loads.count - 1].formUnion(tables) }
    return tables.sorted()
  }

  /// A statement, or a reused cached read, read `tables`.
  func read(_ tables: some Collection<String>) {
    guard !loads.isEmpty, !tables.isEmpty else { return }
    loads[loads.count - 1].formUnion(tables)
  }

  /// What SQLite's authorizer is told for each thing a statement being prepared does; it allows
  /// everything and notes the tables read. The versions table is never a dependency: it is how
  /// the others are checked.
  static let authorizer:
    @convention(c) (
      UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
      UnsafePointer<CChar>?
    ) -> Int32 = { context, action, table, _, _, _ in
      guard action == SQLITE_READ, let context, let table else { return SQLITE_OK }
      let reads = Unmanaged<TableReads>.fromOpaque(context).takeUnretainedValue()
      let name = String(cString: table)
      if name != TableVersioning.table { reads.preparing?.insert(name) }
      return SQLITE_OK
    }
}
