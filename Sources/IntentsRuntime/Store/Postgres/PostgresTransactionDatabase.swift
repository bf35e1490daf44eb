internal import IntentsKit
internal import Logging
internal import NIOCore
internal import PostgresKit
internal import PostgresNIO
internal import SQLKit

/// The `SQLDatabase` a transaction of `PostgresStore` works with: its statements run on the one
/// connection the transaction holds, each noted in the transaction's scope
/// (`PostgresTransactionScope`), and its cached reads answered from the store's read cache
/// (`PostgresReadCache`) when they may be.
///
/// A statement is serialized once and sent with PostgresNIO directly; one with a value PostgresNIO
/// cannot encode itself (nil, or a type only `Encodable`) goes through PostgresKit's database,
/// which encodes it the long way.
struct PostgresTransactionDatabase: SQLDatabase {
  let connection: PostgresConnection
  let scope: PostgresTransactionScope
  let cache: PostgresReadCache
  let logger: Logger

  /// Bytes reserved for a statement's text (`SQLiteLaneDatabase.statementCapacity`).
  static let statementCapacity = 512

  var eventLoop: any EventLoop { connection.eventLoop }
  var dialect: any SQLDialect { PostgresDialect() }
  var queryLogLevel: Logger.Level? { nil }

  func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<
    Void
  > {
    eventLoop.makeFutureWithTask { try await execute(sql: query, onRow) }
  }

  func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
    guard scope.hasLater else { return try await send(query, onRow) }
    // Writes are queued: the statement carries them when it can, or they go first on their own.
    var alone = SQLSerializer(database: self)
    query.serialize(to: &alone)
    let (writes, together) = scope.takeLater(before: alone.sql)
    guard together else {
      try await send(writes)
      return try await send(query, onRow)
    }
    try await send(
      StatementsTogether(
        later: writes, statement: query, statementHasWith: StatementsTogether.beginsWithWith(alone.sql)),
      onRow)
  }

  /// Drops the writes still queued: the transaction is rolled back.
  func dropLater() {
    _ = scope.takeLater(before: nil)
  }

  /// Sends `statement` (COMMIT or ROLLBACK) if the transaction was begun; one whose every read was
  /// answered from kept values sent nothing, and has nothing to end.
  func end(_ statement: String) async throws {
    guard scope.begun else { return }
    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
  }

  /// Sends the writes still queued (`writeLater`), before the commit.
  func sendLater() async throws {
    let (writes, _) = scope.takeLater(before: nil)
    try await send(writes)
  }

  /// Sends queued `writes` on their own: one as it is, several as one statement.
  private func send(_ writes: [SQLQueryString]) async throws {
    guard let first = writes.first else { return }
    let statement: any SQLExpression =
      writes.count == 1 ? first : StatementsTogether(later: writes, statement: nil, statementHasWith: false)
    try await send(statement) { _ in }
  }

  private func send(_ query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
    if let begin = scope.takeBegin() {
      try await connection.query(PostgresQuery(unsafeSQL: begin), logger: logger)
    }
    var serializer = SQLSerializer(database: self)
    serializer.sql.reserveCapacity(Self.statementCapacity)
    query.serialize(to: &serializer)
    scope.run(serializer.sql)
    var bindings = PostgresBindings(capacity: serializer.binds.count)
    for bind in serializer.binds {
      guard let value = bind as? any PostgresThrowingDynamicTypeEncodable else {
        try await connection.sql(queryLogLevel: nil).execute(sql: query, onRow)
        return
      }
      try bindings.append(value)
    }
    let rows = try await connection.query(PostgresQuery(unsafeSQL: serializer.sql, binds: bindings), logger: logger)
    for try await row in rows { onRow(row.sql()) }
  }

  func withSession<R>(_ closure: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
    try await closure(self)
  }
}

extension PostgresTransactionDatabase: WritesLaterDatabase {
  /// Queued to go with the transaction's next statement that names none of its tables, or before
  /// the commit (`StatementsTogether`); run now while the schema's tables are not known.
  func writeLater(_ statement: SQLQueryString) async throws {
    var serializer = SQLSerializer(database: self)
    statement.serialize(to: &serializer)
    guard scope.queueLater(statement, text: serializer.sql) else { return try await send(statement) { _ in } }
  }
}

extension PostgresTransactionDatabase: ReadCachingDatabase {
  /// A value kept by an earlier transaction while none of the tables it was read from has changed,
  /// when this transaction may reuse one (`PostgresTransactionScope.Reuse`); otherwise loaded, with
  /// the tables its statements named gathered, and kept — unless this transaction has written (what
  /// it loads may show its own uncommitted rows) or the load read something the cache cannot follow.
  func cachedRead<Value: Sendable>(_ key: ReadCacheKey, _ load: () async throws -> Value) async throws -> Value {
    guard let start = scope.start, !scope.hasWritten else { return try await loadAlone(load) }
    // A value kept under the key as another type (two reads sharing a name) is read again.
    if await scope.mayReuse(), let kept = cache.kept(key), type(of: kept.value) == Value.self {
      scope.reuse(kept.tables)
      return kept.value as! Value
    }
    scope.startLoad()
    let value: Value
    do {
      value = try await load()
    } catch {
      _ = scope.endLoad()
      throw error
    }
    if let tables = scope.endLoad(), !scope.hasWritten {
      cache.keep(value, for: key, readFrom: tables, generation: start.generation)
    }
    return value
  }

  /// `load`'s value, neither reused nor kept; its tables still count for the loads around it.
  private func loadAlone<Value: Sendable>(_ load: () async throws -> Value) async throws -> Value {
    scope.startLoad()
    do {
      let value = try await load()
      _ = scope.endLoad()
      return value
    } catch {
      _ = scope.endLoad()
      throw error
    }
  }
}
