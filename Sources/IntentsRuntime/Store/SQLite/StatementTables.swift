internal import VaporCSQLite

/// The tables a `SQLiteHandle`'s statements read and write. SQLite names them to the connection's
/// authorizer while a statement is prepared (`SQLITE_READ`: every column read, tables under views
/// and subqueries included; `SQLITE_INSERT`, `SQLITE_UPDATE`, `SQLITE_DELETE`: each table the
/// statement itself changes), so each prepared statement carries its tables; while a cached read
/// loads (`ReadCachingDatabase`), the tables of the statements it runs — and of the cached reads it
/// reuses — are gathered, innermost first, and handed to the reads around it too.
///
/// Not Sendable: it belongs to one connection, used by whoever holds that connection's lane.
final class StatementTables {
  /// What a statement being prepared names.
  struct Named {
    /// The tables it reads, sorted.
    var reads: [String]
    /// The tables it inserts into, updates or deletes from.
    var writes: [String]
    /// Whether it makes a trigger (after which the connection's triggers must run again).
    var makesTrigger: Bool
  }

  /// What is named while a statement is being prepared; nil between preparations.
  private var preparing: Preparing?
  private struct Preparing {
    var reads: Set<String> = []
    var writes: Set<String> = []
    var makesTrigger = false
  }
  /// What each cached read being loaded has read so far, the innermost last.
  private var loads: [Set<String>] = []

  /// Whether a cached read is loading.
  var isGathering: Bool { !loads.isEmpty }

  /// Starts collecting what SQLite names while preparing a statement.
  func startPreparing() {
    preparing = Preparing()
  }

  /// What was named since `startPreparing`.
  func endPreparing() -> Named {
    let named = preparing ?? Preparing()
    preparing = nil
    return Named(reads: named.reads.sorted(), writes: Array(named.writes), makesTrigger: named.makesTrigger)
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
  /// everything and notes the tables read and written. The versions table is never one of them: it
  /// is how the others are checked; nor is a table of SQLite's own written (a schema change writes
  /// `sqlite_schema`, and moves the schema's version instead).
  static let authorizer:
    @convention(c) (
      UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
      UnsafePointer<CChar>?
    ) -> Int32 = { context, action, table, _, _, _ in
      guard let context else { return SQLITE_OK }
      let tables = Unmanaged<StatementTables>.fromOpaque(context).takeUnretainedValue()
      guard tables.preparing != nil else { return SQLITE_OK }
      switch action {
      case SQLITE_READ, SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
        guard let table else { return SQLITE_OK }
        let name = String(cString: table)
        guard name != TableVersioning.table else { return SQLITE_OK }
        if action == SQLITE_READ {
          tables.preparing?.reads.insert(name)
        } else if !name.hasPrefix("sqlite_") {
          tables.preparing?.writes.insert(name)
        }
      case SQLITE_CREATE_TRIGGER, SQLITE_CREATE_TEMP_TRIGGER:
        tables.preparing?.makesTrigger = true
      default:
        break
      }
      return SQLITE_OK
    }
}
