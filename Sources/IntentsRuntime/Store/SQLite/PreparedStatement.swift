internal import VaporCSQLite

/// A statement `SQLiteHandle` prepared once and keeps: SQLite's statement, the tables it reads and
/// writes (`StatementTables`), and the names of its result columns — read from SQLite once, not for
/// every run, and again only if SQLite has prepared the statement anew since (after a schema change,
/// which may change what a `SELECT *` returns).
///
/// Not Sendable: it belongs to one connection, used by whoever holds that connection's lane.
final class PreparedStatement {
  let statement: OpaquePointer
  /// What SQLite named while preparing it. A statement SQLite prepares again by itself (after a
  /// schema change) is one the same text made, on the same tables.
  let tables: StatementTables.Named
  private var columns: SQLiteResultRow.Columns?
  /// SQLite's count of the statement's automatic re-preparations when `columns` was read.
  private var columnsPreparation: Int32 = -1

  init(statement: OpaquePointer, tables: StatementTables.Named) {
    self.statement = statement
    self.tables = tables
  }

  /// The names of the statement's result columns, as the statement is prepared now.
  var resultColumns: SQLiteResultRow.Columns {
    let preparation = sqlite_nio_sqlite3_stmt_status(statement, SQLITE_STMTSTATUS_REPREPARE, 0)
    if let columns, preparation == columnsPreparation { return columns }
    let names = (0..<sqlite_nio_sqlite3_column_count(statement)).map { column in
      sqlite_nio_sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
    }
    let fresh = SQLiteResultRow.Columns(names: names)
    columns = fresh
    columnsPreparation = preparation
    return fresh
  }

  /// Releases SQLite's statement; the object is not used after.
  func finalize() {
    sqlite_nio_sqlite3_finalize(statement)
  }
}
