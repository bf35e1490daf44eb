internal import IntentsKit
internal import CSQLiteOptions
internal import NIOCore
internal import SQLiteNIO
internal import VaporCSQLite

/// One SQLite connection, run synchronously on the calling thread by whoever holds it (a store
/// lane's lock: one caller at a time), with its statements prepared once and kept. A statement
/// is a few microseconds of CPU on pages SQLite has cached; running it in place spares the hop to
/// a thread pool and back that each statement cost through SQLiteNIO — most of a small query's
/// time. The disk is waited for elsewhere (`GroupCommit`).
///
/// @unchecked Sendable: `raw`, `statements`, `statementTables`, `dataVersionInTransaction`,
/// `snapshot`, `defersSnapshots`, `walIndex`, `walIndexSought`, `deferredSnapshotsTaken`,
/// `lastChangedRows`, `versionMoves` and `versionBumping` are mutated only by `run`, `begin`,
/// `beginRead`, `endRead`, `abandonRead`, `commit`, `stamp`, `readView`, `chooseVersionBumping`,
/// `checkVersionBumping`, `setBusyTimeout`, `close` and the cached reads of `SQLiteLaneDatabase`,
/// and these are called only while the lane's `AsyncLock` is held — by `SQLiteStore`, or by
/// `SQLiteLaneDatabase` inside a transaction the store runs (or, for a `BEGIN IMMEDIATE` that waits
/// for another process, on the store's thread while the writing task holds that lock and waits), so
/// no two threads touch them at once and the lock orders each access after the last;
/// `WriteAheadLog`'s checkpoint connection is used by its one thread only. The connection is opened
/// `SQLITE_OPEN_NOMUTEX`, which SQLite allows for exactly this use.
final class SQLiteHandle: @unchecked Sendable {
  private var raw: OpaquePointer?
  /// Prepared statements by their SQL text; cleared whole when it outgrows `maxStatements`.
  private var statements = PreparedStatements<PreparedStatement>()
  private static let maxStatements = 512
  /// What this connection's transactions read and may reuse while the tables they read are unchanged.
  let readCache = ReadCache()
  /// The tables statements read and write, learnt as they are prepared; what cached reads read,
  /// gathered as they load.
  let statementTables = StatementTables()
  /// The data version the transaction begun last read, once it has read it.
  private var dataVersionInTransaction: Int64?
  /// When the read transaction takes SQLite's snapshot (`beginRead`).
  private var snapshot = DeferredSnapshot()
  /// Whether the last read transaction begun was asked to defer its snapshot (a reader's).
  private var defersSnapshots = false
  /// The database's WAL index as SQLite maps it for this connection, found once a deferring read
  /// transaction has taken a snapshot; until then, read transactions take theirs at once.
  private var walIndex: WALIndex?
  private var walIndexSought = false
  /// The rows the last statement run that writes changed itself (not its triggers', nor the
  /// versions moved for it).
  private var lastChangedRows = 0
  /// How many statements of the open transaction wrote each table, while this connection moves the
  /// versions itself: their versions move by as many when it commits (`commit()`).
  private var versionMoves: [String: Int64] = [:]
  /// Whether this connection moves the table versions itself, its triggers off, and the schema's
  /// version when that was decided; nil until `chooseVersionBumping` is first called.
  private var versionBumping: VersionBumping?
  private struct VersionBumping {
    var bumps: Bool
    var schemaVersion: Int64
  }

  /// Opens (creating if needed) the database at `path`, or a private in-memory one for ":memory:".
  init(path: String) throws {
    var handle: OpaquePointer?
    let flags = SQLITE_OPEN_CREATE | SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
    let status = sqlite_nio_sqlite3_open_v2(path, &handle, flags, nil)
    guard status == SQLITE_OK, let handle else {
      let message = handle.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite_nio_sqlite3_close(handle)
      throw SQLiteStatementError(code: status, message: "cannot open \(path): \(message)")
    }
    raw = handle
    // Told what each statement reads as it is prepared; installed once (setting an authorizer
    // expires every prepared statement).
    sqlite_nio_sqlite3_set_authorizer(
      handle, StatementTables.authorizer, Unmanaged.passUnretained(statementTables).toOpaque())
    // A statement keeps its plan whatever is bound: without this, binding a value SQLite's planner
    // looked at (a `column = ?` moving between 0/1 and other numbers) re-prepares the statement —
    // a parse and plan on every call of a query run with alternating values.
    let configured = intentmesh_sqlite_enable_qpsg(handle)
    guard configured == SQLITE_OK else {
      sqlite_nio_sqlite3_close(handle)
      raw = nil
      throw SQLiteStatementError(code: configured, message: "cannot configure \(path)")
    }
  }

  deinit { close() }

  /// Runs `sql` with `binds`, handing each row to `onRow` as it is stepped.
  func run(_ sql: String, _ binds: [SQLiteData], _ onRow: (SQLiteResultRow) -> Void) throws {
    guard let raw else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
    try takeSnapshotIfDeferred()
    // Outside a transaction the versions of the tables the statement wrote move right after it,
    // once it has been reset: preparing the move may drop every kept statement, this one too.
    for table in try runStatement(sql, binds, onRow, on: raw) { try moveVersion(of: table, by: 1, on: raw) }
  }

  /// `run`'s statement; returns the tables whose versions are to move now (written outside a
  /// transaction while this connection moves them itself).
  private func runStatement(
    _ sql: String, _ binds: [SQLiteData], _ onRow: (SQLiteResultRow) -> Void, on raw: OpaquePointer
  ) throws -> [String] {
    let prepared = try prepared(sql, on: raw)
    let statement = prepared.statement
    statementTables.read(prepared.tables.reads)
    defer {
      // Not sqlite3_clear_bindings: every run binds every parameter anew, and clearing them
      // expires (re-prepares) any statement whose plan SQLite let depend on a bound value.
      sqlite_nio_sqlite3_reset(statement)
    }
    for (index, value) in binds.enumerated() {
      try check(StatementValues.bind(value, at: Int32(index + 1), of: statement), sql)
    }
    var columns: SQLiteResultRow.Columns?
    try step(statement, sql) {
      let names = columns ?? prepared.resultColumns
      columns = names
      onRow(SQLiteResultRow(columns: names, values: StatementValues.row(of: statement, count: names.names.count)))
    }
    guard sqlite_nio_sqlite3_stmt_readonly(statement) == 0 else { return [] }
    let changed = Int(sqlite_nio_sqlite3_changes64(raw))
    var moveNow: [String] = []
    if versionBumping?.bumps == true {
      if changed > 0 {
        if sqlite_nio_sqlite3_get_autocommit(raw) == 0 {
          // Moved once per table when the transaction commits (`commit()`), by as many.
          for table in prepared.tables.writes { versionMoves[table, default: 0] += 1 }
        } else {
          moveNow = prepared.tables.writes
        }
      }
      // A trigger made now runs from the next statement on; whether versions can be moved without
      // triggers is decided again before the next write transaction.
      if prepared.tables.makesTrigger { try setTriggers(on: true, bumps: false, schemaVersion: -1) }
    }
    lastChangedRows = changed
    return moveNow
  }

  /// Moves `table`'s version by `count`: the statements that wrote it (its triggers, when on, move
  /// it once per row; any move is what tells a kept value it is stale). A write undone by `ROLLBACK
  /// TO` still counts: a version moved too far only has kept values read again.
  private func moveVersion(of table: String, by count: Int64, on raw: OpaquePointer) throws {
    let sql = TableVersioning.moveVersion
    let statement = try prepared(sql, on: raw).statement
    defer { sqlite_nio_sqlite3_reset(statement) }
    try check(StatementValues.bind(.text(table), at: 1, of: statement), sql)
    try check(StatementValues.bind(.integer(Int(count)), at: 2, of: statement), sql)
    try step(statement, sql) {}
  }

  /// Commits the open transaction, having first moved the version of every table its statements
  /// wrote by the number of those statements (one `UPDATE` per table, not one per statement: a
  /// batch of payments writes the same five tables over and over).
  func commit() throws {
    guard let raw else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
    for (table, count) in versionMoves { try moveVersion(of: table, by: count, on: raw) }
    versionMoves.removeAll(keepingCapacity: true)
    try run("COMMIT", []) { _ in }
  }

  /// Steps `statement` (the text `sql`) to its end, calling `onRow` at each row.
  private func step(_ statement: OpaquePointer, _ sql: String, _ onRow: () -> Void) throws {
    while true {
      let status = sqlite_nio_sqlite3_step(statement)
      guard status == SQLITE_ROW else {
        guard status == SQLITE_DONE else { throw error(status, sql) }
        return
      }
      onRow()
    }
  }

  /// Begins a transaction with `sql` ("BEGIN DEFERRED", "BEGIN IMMEDIATE").
  func begin(_ sql: String) throws {
    guard let raw else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
    _ = try runStatement(sql, [], { _ in }, on: raw)
    dataVersionInTransaction = nil
    // Left by a transaction that was rolled back: its writes are gone.
    versionMoves.removeAll(keepingCapacity: true)
  }

  /// Begins a read transaction. With `deferringSnapshot` (a reader connection on a file), SQLite's
  /// transaction — its snapshot, and the WAL's read locks — waits for the first statement that must
  /// run (`DeferredSnapshot`); a cached read before then is answered from the WAL index alone. If a
  /// commit came in between, `snapshotMoved` turns true, every statement of the transaction fails,
  /// and its body is to run again without deferring.
  func beginRead(deferringSnapshot: Bool) throws {
    defersSnapshots = deferringSnapshot
    guard snapshot.start(deferring: deferringSnapshot && walIndex != nil) else { return }
    do {
      try begin("BEGIN DEFERRED")
    } catch {
      snapshot.end()
      throw error
    }
  }

  /// Deferred snapshots taken so far: read transactions that had to run a statement (for tests).
  private(set) var deferredSnapshotsTaken = 0

  /// Whether the read transaction's snapshot was taken at another state than the one its cached
  /// reads were answered at (`beginRead`).
  var snapshotMoved: Bool { snapshot.isMoved }

  /// Ends the read transaction: `COMMIT`, if SQLite's began.
  func endRead() throws {
    defer { snapshot.end() }
    if snapshot.isBegun { try commit() }
  }

  /// Ends the read transaction after an error (or a moved snapshot): `ROLLBACK`, if SQLite's is open.
  func abandonRead() {
    snapshot.end()
    if inTransaction { try? run("ROLLBACK", []) { _ in } }
  }

  /// Before a statement of a read transaction whose snapshot is deferred: takes it, the WAL index
  /// header read just before; if cached reads were answered already, checks that its stamp is the
  /// one they were answered at.
  private func takeSnapshotIfDeferred() throws {
    if snapshot.isMoved { throw SnapshotMovedError() }
    guard snapshot.awaitsSnapshot else { return }
    let header = walIndex?.header()
    try begin("BEGIN DEFERRED")
    deferredSnapshotsTaken += 1
    guard snapshot.began(headerBefore: header) else { return }
    _ = try stamp()
  }

  /// Where the database is now, as this connection sees it inside its transaction: SQLite's data
  /// version (`PRAGMA data_version`, which moves with every other connection's commit; read once
  /// per transaction, whose snapshot it cannot leave) and the rows this connection has changed so
  /// far.
  func stamp() throws -> ReadCache.Stamp {
    guard let raw else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
    if let walIndex, let stamp = snapshot.stampWithoutSnapshot(header: walIndex.header) { return stamp }
    try takeSnapshotIfDeferred()
    let inTransaction = sqlite_nio_sqlite3_get_autocommit(raw) == 0
    let dataVersion: Int64
    if inTransaction, let known = dataVersionInTransaction {
      dataVersion = known
    } else {
      var read: Int64 = -1
      try run("PRAGMA data_version", []) { row in
        if case .integer(let value) = row.values.first { read = Int64(value) }
      }
      dataVersion = read
      if inTransaction { dataVersionInTransaction = read }
      // Mapped by now, in WAL mode: a snapshot has been taken. Sought once.
      if inTransaction, defersSnapshots, !walIndexSought {
        walIndexSought = true
        if try inWALMode() { walIndex = WALIndex(connection: raw) }
      }
    }
    let stamp = ReadCache.Stamp(dataVersion: dataVersion, changes: sqlite_nio_sqlite3_total_changes64(raw))
    guard snapshot.read(stamp) else { throw SnapshotMovedError() }
    return stamp
  }

  /// The store as this connection's transaction sees it: its stamp and the table versions
  /// (`TableVersioning`), read again only when the stamp has moved since they were last read.
  func readView() throws -> ReadCache.View {
    let stamp = try stamp()
    if let versions = readCache.versions(at: stamp) { return ReadCache.View(stamp: stamp, versions: versions) }
    // The transaction's own writes count as moved already, as the triggers would have moved them.
    let versions = try readVersions(sharingNamesWith: readCache.lastNames).moved(by: versionMoves)
    readCache.remember(versions, at: stamp)
    return ReadCache.View(stamp: stamp, versions: versions)
  }

  /// The schema's version and every versioned table's, read now. The tables' rows come in the
  /// order of their names, as last time unless a table was versioned or dropped since: while each
  /// row's name is the one at its place in `earlier`, no name is made (a string, and a dictionary
  /// entry, per table for every read — the writer reads them again after each of its writes), and
  /// the versions share `earlier`.
  private func readVersions(sharingNamesWith earlier: TableVersions.Names?) throws -> TableVersions {
    var values: [Int64] = []
    values.reserveCapacity(earlier?.names.count ?? 16)
    try stepRows(TableVersioning.schemaVersion) { values.append(sqlite_nio_sqlite3_column_int64($0, 0)) }
    guard values.count == 1 else { throw SQLiteStatementError(code: SQLITE_ERROR, message: "no schema version") }
    // Made only once a name differs from `earlier`'s (or there is no `earlier`).
    var names: [String]?
    do {
      try stepRows(TableVersioning.tableVersions) { statement in
        let version = sqlite_nio_sqlite3_column_int64(statement, 1)
        let length = Int(sqlite_nio_sqlite3_column_bytes(statement, 0))
        let bytes = UnsafeRawBufferPointer(start: sqlite_nio_sqlite3_column_text(statement, 0), count: length)
        let position = values.count
        values.append(version)
        if names == nil, let earlier, position < earlier.names.count, TextBytes.equal(earlier.names[position], bytes) {
          return
        }
        if names == nil { names = Array((earlier?.names ?? [TableVersioning.schema]).prefix(position)) }
        names?.append(String(decoding: bytes, as: UTF8.self))
      }
    } catch let error as SQLiteStatementError where error.isMissingTable {
      // A store whose schema has not been versioned (yet): every table is without a version.
    }
    if names == nil, let earlier, earlier.names.count == values.count {
      return TableVersions(names: earlier, values: values)
    }
    let read = names ?? Array((earlier?.names ?? [TableVersioning.schema]).prefix(values.count))
    return TableVersions(names: TableVersions.Names(read), values: values)
  }

  /// Runs `sql`, which has no parameters, handing the statement to `onRow` at each row to read its
  /// columns in place.
  private func stepRows(_ sql: String, _ onRow: (OpaquePointer) -> Void) throws {
    guard let raw else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
    try takeSnapshotIfDeferred()
    let statement = try prepared(sql, on: raw).statement
    defer { sqlite_nio_sqlite3_reset(statement) }
    try step(statement, sql) { onRow(statement) }
  }

  /// The rows the INSERT, UPDATE or DELETE run last changed itself (`sqlite3_changes64` right after
  /// it: its own rows, not its triggers', nor the versions moved for it).
  var changedRows: Int { lastChangedRows }

  /// Decides whether this connection moves the table versions (`TableVersioning`) itself: it counts
  /// the statements that changed rows of each table and, as the transaction commits, moves each
  /// table's version by its count in one `UPDATE` (outside a transaction, one after each such
  /// statement), with the connection's triggers off — the same versions, in the same transaction,
  /// its own reads seeing them moved already (`readView`), without SQLite running a trigger
  /// program and keeping a statement journal for every row written (~3 µs a row). Only while the
  /// schema has no trigger but the versions' and no foreign key that changes rows
  /// (`TableVersioning.versionsMovableWithoutTriggers`); the triggers stay on otherwise. Other
  /// connections — another process, the `sqlite3` shell — keep their triggers and move the
  /// versions through them.
  func chooseVersionBumping() throws {
    let schemaVersion = try integer("PRAGMA schema_version")
    let bumps = try integer(TableVersioning.versionsMovableWithoutTriggers) == 1
    try setTriggers(on: !bumps, bumps: bumps, schemaVersion: schemaVersion)
  }

  /// Before a write transaction: decides again (`chooseVersionBumping`) if the schema has changed
  /// since the last decision — a trigger or a foreign key may have come, from this connection or
  /// another. Nothing before the first decision.
  func checkVersionBumping() throws {
    guard let versionBumping, try integer("PRAGMA schema_version") != versionBumping.schemaVersion else { return }
    try chooseVersionBumping()
  }

  /// Whether the connection moves the table versions itself (`chooseVersionBumping`).
  var bumpsVersions: Bool { versionBumping?.bumps ?? false }

  private func setTriggers(on: Bool, bumps: Bool, schemaVersion: Int64) throws {
    guard let raw else { throw SQLiteStatementError(code: SQLITE_MISUSE, message: "the connection is closed") }
    let status = intentmesh_sqlite_enable_triggers(raw, on ? 1 : 0)
    guard status == SQLITE_OK else { throw error(status, "SQLITE_DBCONFIG_ENABLE_TRIGGER") }
    versionBumping = VersionBumping(bumps: bumps, schemaVersion: schemaVersion)
  }

  /// The first column of the one row `sql` (without parameters) answers.
  func integer(_ sql: String) throws -> Int64 {
    var value: Int64?
    try stepRows(sql) { value = value ?? sqlite_nio_sqlite3_column_int64($0, 0) }
    guard let value else { throw SQLiteStatementError(code: SQLITE_ERROR, message: "no row: \(sql)") }
    return value
  }

  /// Whether the database is in WAL mode (`PRAGMA journal_mode`).
  private func inWALMode() throws -> Bool {
    var mode = ""
    try stepRows("PRAGMA journal_mode") { statement in
      guard let text = sqlite_nio_sqlite3_column_text(statement, 0) else { return }
      mode = String(cString: text)
    }
    return mode.lowercased() == "wal"
  }

  /// Whether a transaction is open on the connection (SQLite ends one itself after some errors).
  var inTransaction: Bool {
    guard let raw else { return false }
    return sqlite_nio_sqlite3_get_autocommit(raw) == 0
  }

  /// The write-ahead log's file as SQLite names it: next to the database file a symbolic link
  /// leads to, not to the link. Nil for an in-memory database or a closed connection.
  var logPath: String? {
    guard let raw, let database = sqlite_nio_sqlite3_db_filename(raw, "main"),
      let log = sqlite_nio_sqlite3_filename_wal(database)
    else { return nil }
    let path = String(cString: log)
    return path.isEmpty ? nil : path
  }

  /// How long a statement waits for another connection's lock before failing `SQLITE_BUSY`.
  func setBusyTimeout(milliseconds: Int32) {
    if let raw { sqlite_nio_sqlite3_busy_timeout(raw, milliseconds) }
  }

  /// The function SQLite calls after each commit of this connection with the log's length in
  /// frames (`sqlite3_wal_hook`); it replaces SQLite's automatic checkpoints.
  func onWALCommit(
    _ context: UnsafeMutableRawPointer,
    _ hook: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32
  ) {
    if let raw { _ = sqlite_nio_sqlite3_wal_hook(raw, hook, context) }
  }

  /// Closes the connection; its statements are finalized first.
  func close() {
    // SQLite unmaps it as the process's last connection to the file closes.
    walIndex = nil
    for prepared in statements.all { prepared.finalize() }
    statements.removeAll()
    if let raw { sqlite_nio_sqlite3_close(raw) }
    raw = nil
  }

  private func prepared(_ sql: String, on raw: OpaquePointer) throws -> PreparedStatement {
    let digest = StatementText.digest(of: sql)
    if let prepared = statements.find(sql, digest: digest) { return prepared }
    if statements.count >= Self.maxStatements {
      for prepared in statements.all { prepared.finalize() }
      statements.removeAll()
    }
    var statement: OpaquePointer?
    statementTables.startPreparing()
    let status = sqlite_nio_sqlite3_prepare_v3(raw, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    let tables = statementTables.endPreparing()
    guard status == SQLITE_OK, let statement else { throw error(status, sql) }
    let prepared = PreparedStatement(statement: statement, tables: tables)
    statements.insert(prepared, for: sql, digest: digest)
    return prepared
  }

  private func check(_ status: Int32, _ sql: String) throws {
    guard status == SQLITE_OK else { throw error(status, sql) }
  }

  private func error(_ status: Int32, _ sql: String) -> SQLiteStatementError {
    let message = raw.map { String(cString: sqlite_nio_sqlite3_errmsg($0)) } ?? "the connection is closed"
    return SQLiteStatementError(code: status, message: message)
  }
}
