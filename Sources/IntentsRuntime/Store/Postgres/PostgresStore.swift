package import IntentsKit
internal import Foundation
package import Logging
internal import PostgresKit
internal import PostgresNIO
package import SQLKit
internal import Synchronization

/// The shared store: one PostgreSQL database for any number of replicas of a domain, its tables in
/// the domain's own schema. Every write transaction takes the schema's write lock (a
/// transaction-scoped advisory lock) first: a `.serialized` write takes it alone, so it runs one at
/// a time with every other write of every replica, in one order — the single writer SQLite has —
/// and reads what the ones before it committed (READ COMMITTED after the lock); a `.concurrent`
/// write takes it shared, beside the other concurrent ones, its effects held by its own statements
/// (a conditional UPDATE, a unique key). Hot rows (one user's balance) then cost a row lock's wait,
/// not a storm of serialization failures. Reads run on a REPEATABLE READ snapshot beside the
/// writers. A transaction the server aborts (serialization failure, deadlock; in a concurrent
/// write also a unique key another write took first) or whose body throws `WriteConflict` is run
/// again from the start. Commits are durable when they return (PostgreSQL's default
/// `synchronous_commit=on`). A transaction runs on the event loop of its connection
/// (`EventLoopTaskExecutor`), so its statements cost no thread hops.
///
/// Cached reads (`cachedRead`) are kept across transactions while the tables they were read from
/// have not changed (`PostgresReadCache`): this replica's writes say so when they commit, the other
/// replicas' by PostgreSQL's notifications (`ChangeNotifications`, `PostgresChangeListener`).
package final class PostgresStore: IntentStore {
  private let client: PostgresClient
  private let runner: Task<Void, Never>
  private let cache = PostgresReadCache()
  private let barrier = ChangeBarrier()
  private let listener = Mutex<Task<Void, Never>?>(nil)
  private let logger: Logger
  /// The schema this store's tables live in.
  package let schema: String
  /// The key of the schema's write lock.
  private let writerKey: Int64
  /// How many times a transaction is tried before its conflict is reported.
  package static let attempts = 40

  private init(client: PostgresClient, runner: Task<Void, Never>, schema: String, logger: Logger) {
    self.client = client
    self.runner = runner
    self.schema = schema
    self.writerKey = Self.lockKey(schema + ".writer")
    self.logger = logger
  }

  /// Connects to `location`, creating the schema if needed (`defaultSchema` when the URL names none).
  package static func open(
    _ location: StoreLocation.PostgresLocation, defaultSchema: String, logger: Logger, maximumConnections: Int = 8
  ) async throws -> PostgresStore {
    let schema = location.schema ?? defaultSchema
    guard StoreLocation.isIdentifier(schema) else {
      throw StoreLocationError("schema \(schema) must be letters, digits and underscores, starting with a letter")
    }
    let tls = try PostgresTLS(location.tls)
    // One connection first: a server that cannot be reached, refuses the credentials or fails the
    // TLS the URL asks for says why at once — the pool would retry for a minute, then say only that
    // it gave up.
    var probe = PostgresConnection.Configuration(
      host: location.host, port: location.port, username: location.username, password: location.password,
      database: location.database, tls: try tls.connection())
    probe.options.connectTimeout = .seconds(5)
    do {
      let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
      try await connection.close()
    } catch {
      throw StoreLocationError(
        "cannot connect to PostgreSQL at \(location.host):\(location.port) (sslmode \(location.tls)): \(String(reflecting: error))"
      )
    }
    var configuration = PostgresClient.Configuration(
      host: location.host, port: location.port, username: location.username, password: location.password,
      database: location.database, tls: tls.client)
    configuration.options.maximumConnections = max(2, maximumConnections)
    configuration.options.connectTimeout = .seconds(5)
    configuration.options.additionalStartupParameters = [("search_path", schema)]
    let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
    let runner = Task { await client.run() }
    let store = PostgresStore(client: client, runner: runner, schema: schema, logger: logger)
    do {
      try await store.exclusively { database in
        try await database.raw(SQLQueryString("CREATE SCHEMA IF NOT EXISTS \(schema)")).run()
      }
    } catch {
      runner.cancel()
      throw error
    }
    store.startListening(configuration: probe)
    return store
  }

  /// Starts hearing the other replicas' writes for the read cache.
  private func startListening(configuration: PostgresConnection.Configuration) {
    let channel = ChangeNotifications.channel(schema: schema)
    let listener = PostgresChangeListener(
      configuration: configuration, channel: channel, cache: cache, barrier: barrier, logger: logger)
    self.listener.withLock { $0 = Task { await listener.run() } }
  }

  /// Whether cached reads may be kept and reused now: the schema's tables are known and the other
  /// replicas' writes are heard.
  package var readCacheIsLive: Bool { cache.begin() != nil }

  /// Puts the change notifications on every table migrations left, and starts the read cache
  /// afresh with the schema's tables.
  package func schemaDidChange() async throws {
    // A lock of its own: migrations may run inside `changingSchema`, which holds the schema's.
    let tables = try await exclusively(lock: schema + ".notifications") { database in
      try await ChangeNotifications.install(schema: self.schema, in: database)
    }
    cache.schemaChanged(tables: tables)
  }

  package func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await write(.serialized, body)
  }

  package func write<T: Sendable>(
    _ concurrency: WriteConcurrency, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    try await StoreTracing.span("store write", system: "postgresql") {
      try await writeTransaction(concurrency, body)
    }
  }

  package func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await StoreTracing.span("store read", system: "postgresql") { try await readTransaction(body) }
  }

  private func writeTransaction<T: Sendable>(
    _ concurrency: WriteConcurrency, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    let lock: SQLQueryString =
      switch concurrency {
      case .serialized: "SELECT pg_advisory_xact_lock(\(bind: writerKey))"
      case .concurrent: "SELECT pg_advisory_xact_lock_shared(\(bind: writerKey))"
      }
    return try await transaction(
      begin: "BEGIN ISOLATION LEVEL READ COMMITTED", concurrency: concurrency,
      reuse: concurrency == .concurrent ? .whenKept : .never
    ) { database in
      try await database.raw(lock).run()
      return try await body(database)
    }
  }

  private func readTransaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await transaction(
      begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", concurrency: .serialized,
      reuse: .afterBarrier(barrier), body)
  }

  /// Runs `body` on one connection while holding this schema's advisory lock (or the one named
  /// `lock`), outside any transaction: replicas starting together apply the schema one at a time.
  package func exclusively<T: Sendable>(
    lock: String? = nil, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    let key = Self.lockKey(lock ?? schema)
    return try await client.withConnection { connection in
      let database = connection.sql()
      try await database.raw("SELECT pg_advisory_lock(\(bind: key))").run()
      do {
        let result = try await body(database)
        try await database.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
        return result
      } catch {
        _ = try? await database.raw("SELECT pg_advisory_unlock(\(bind: key))").run()
        throw error
      }
    }
  }

  package func changingSchema(_ body: @Sendable () async throws -> Void) async throws {
    try await exclusively { _ in try await body() }
  }

  /// Runs `body` in a transaction begun by `begin`; `reuse`: when its cached reads may be
  /// answered by values kept from earlier transactions.
  private func transaction<T: Sendable>(
    begin: String, concurrency: WriteConcurrency, reuse: PostgresTransactionScope.Reuse,
    _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    var attempt = 1
    var conflicts = 1
    while true {
      do {
        return try await client.withConnection { connection in
          try await withTaskExecutorPreference(EventLoopTaskExecutor(connection.eventLoop)) {
            // Noted before the first statement: the snapshot then holds every change counted.
            let scope = PostgresTransactionScope(start: cache.begin(), knownTables: cache.tables, reuse: reuse)
            let database = PostgresTransactionDatabase(
              connection: connection, scope: scope, cache: cache, logger: logger)
            // What the transaction wrote changed, for this replica's cache, once it ends —
            // committed, or perhaps committed when the COMMIT's answer was lost.
            defer { if scope.hasWritten { cache.changed(scope.written) } }
            // Sent with the first statement: a read answered from kept values sends none.
            scope.holdBegin(begin)
            do {
              let result = try await body(database)
              try await database.sendLater()
              try await database.end("COMMIT")
              return result
            } catch {
              database.dropLater()
              try? await database.end("ROLLBACK")
              throw error
            }
          }
        }
      } catch let error where attempt < Self.attempts && Self.isRetryable(error) {
        logger.debug("transaction conflict, trying again", metadata: ["attempt": "\(attempt)"])
        try await Task.sleep(for: .milliseconds(Int.random(in: 1...min(5 * attempt, 100))))
        attempt += 1
      } catch let error where Self.isConflict(error, concurrency) {
        // What the write read moved under it: run again (no wait — what it waited for has committed).
        guard conflicts < WriteConflict.attempts else {
          throw (error as? WriteConflict)?.exhausted
            ?? WriteConflict("another Handle of the same intent identifier").exhausted
        }
        logger.debug("concurrent write conflict, running it again", metadata: ["attempt": "\(conflicts)"])
        conflicts += 1
      } catch let error as PSQLError {
        throw PostgresStoreError(error, attempts: attempt)
      }
    }
  }

  /// A write's conflicts: its body found what it read had moved (`WriteConflict`), or — in a
  /// concurrent write — the handled-intent row it inserted was inserted by another write meanwhile
  /// (23505 on that table's key): a Handle of the same intent identifier, whose answer the next run
  /// replays. Any other unique key a write trips is its own error, not run again.
  static func isConflict(_ error: any Error, _ concurrency: WriteConcurrency) -> Bool {
    if error is WriteConflict { return true }
    guard concurrency == .concurrent, let error = error as? PSQLError, let info = error.serverInfo else {
      return false
    }
    return info[.sqlState] == "23505" && info[.constraintName] == handledIntentsKey
  }

  /// The primary key of `intentmesh_handled_intents` (PostgreSQL's name for it).
  static let handledIntentsKey = "intentmesh_handled_intents_pkey"

  /// Serialization failures (40001) and deadlocks (40P01) mean "run the transaction again".
  static func isRetryable(_ error: any Error) -> Bool {
    guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return false }
    return state == "40001" || state == "40P01"
  }

  /// A stable 64-bit key for the schema's advisory lock.
  static func lockKey(_ schema: String) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in "intentmesh.\(schema)".utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return Int64(bitPattern: hash)
  }

  /// Drops this store's schema and everything in it (for tests that made a throwaway schema).
  package func dropSchema() async throws {
    try await exclusively { database in
      try await database.raw(SQLQueryString("DROP SCHEMA IF EXISTS \(self.schema) CASCADE")).run()
    }
  }

  package func close() async throws {
    if let listener = listener.withLock({ $0 }) {
      listener.cancel()
      await listener.value
    }
    runner.cancel()
    await runner.value
  }
}

/// A PostgreSQL failure with what the server said (PSQLError hides it from `description`).
package struct PostgresStoreError: Error, CustomStringConvertible {
  /// The SQLSTATE code, e.g. "23505" for a unique violation.
  package let sqlState: String?
  package let description: String

  init(_ error: PSQLError, attempts: Int) {
    let info = error.serverInfo
    sqlState = info?[.sqlState]
    var text = "PostgreSQL: " + (info?[.message] ?? "\(error.code)")
    if let state = sqlState { text += " (SQLSTATE \(state))" }
    if let detail = info?[.detail] { text += ": \(detail)" }
    if attempts > 1 { text += " after \(attempts) attempts" }
    description = text
  }
}
