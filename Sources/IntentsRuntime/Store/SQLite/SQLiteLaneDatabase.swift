internal import IntentsKit
internal import Logging
internal import NIOCore
internal import SQLKit
internal import SQLiteKit
internal import SQLiteNIO

/// The `SQLDatabase` a transaction of `SQLiteStore` works with: its statements run in place on the
/// lane's connection (`SQLiteHandle`), which the transaction holds for as long as it runs.
struct SQLiteLaneDatabase: SQLDatabase {
  let handle: SQLiteHandle
  let logger: Logger
  let eventLoop: any EventLoop

  /// Bytes reserved for a statement's text: the domains' statements are mostly under 200 bytes,
  /// the longest about 800 (one that long grows once); small enough for malloc's per-thread cache.
  static let statementCapacity = 512
  /// Values reserved for a statement's binds: the domains' statements mostly bind fewer.
  static let bindCapacity = 16

  var dialect: any SQLDialect { SQLiteLaneDialect() }
  var queryLogLevel: Logger.Level? { nil }

  func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<
    Void
  > {
    eventLoop.makeCompletedFuture { try run(query, onRow) }
  }

  func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
    try run(query, onRow)
  }

  func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
    try await closure(self)
  }

  private func run(_ query: any SQLExpression, _ onRow: (any SQLRow) -> Void) throws {
    try bindAndRun(query) { onRow($0) }
  }

  private func bindAndRun(_ query: any SQLExpression, _ onRow: (SQLiteResultRow) -> Void) throws {
    // The text written into room made up front: appended to an empty string, SQLKit's fragments
    // grow it (a new allocation and a copy) several times a statement.
    var serializer = SQLSerializer(database: self)
    serializer.sql.reserveCapacity(Self.statementCapacity)
    // Room for the values too: appended one by one to an empty array, they grow it (a new
    // allocation and a copy) several times a statement.
    serializer.binds.reserveCapacity(Self.bindCapacity)
    query.serialize(to: &serializer)
    let (sql, binds) = (serializer.sql, serializer.binds)
    var encoder: SQLiteDataEncoder?
    var values: [SQLiteData] = []
    values.reserveCapacity(binds.count)
    for bind in binds { values.append(try SQLiteBindValue.data(bind, encoder: &encoder)) }
    try handle.run(sql, values, onRow)
  }
}

extension SQLiteLaneDatabase: ChangeCountingDatabase {
  func changedRows(by statement: SQLQueryString) async throws -> Int {
    try bindAndRun(statement) { _ in }
    return handle.changedRows
  }
}

extension SQLiteLaneDatabase: ReadCachingDatabase {
  /// A value kept from an earlier transaction while none of the tables it was read from has moved;
  /// otherwise loaded, with the tables its statements read gathered (`StatementTables`), and kept. The
  /// tables count as read by any cached read loading around this one, whether this one loads or
  /// reuses.
  func cachedRead<Value: Sendable>(_ key: ReadCacheKey, _ load: () async throws -> Value) async throws -> Value {
    let view = try handle.readView()
    // A value kept under the key as another type (two reads sharing a name) is read again. The
    // type is compared before the cast, which then needs no optional of `Value`.
    if let kept = handle.readCache.kept(key, in: view), type(of: kept.value) == Value.self {
      handle.statementTables.read(kept.tables)
      return kept.value as! Value
    }
    handle.statementTables.startLoad()
    let value: Value
    do {
      value = try await load()
      // A load that let the error of a moved snapshot pass (a `try?`) has not read what it says
      // (`DeferredSnapshot`): not kept; the transaction's body runs again.
      if handle.snapshotMoved { throw SnapshotMovedError() }
    } catch {
      _ = handle.statementTables.endLoad()
      throw error
    }
    handle.readCache.keep(value, for: key, readFrom: handle.statementTables.endLoad(), in: view)
    return value
  }
}
