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

  var dialect: any SQLDialect { SQLiteDialect() }
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
    let (sql, binds) = serialize(query)
    let encoder = SQLiteDataEncoder()
    try handle.run(sql, try binds.map { try encoder.encode($0) }) { onRow($0) }
  }
}

extension SQLiteLaneDatabase: ReadCachingDatabase {
  func cachedRead<Value: Sendable>(_ key: ReadCacheKey, _ load: () async throws -> Value) async throws -> Value {
    let stamp = try handle.stamp()
    if let kept = handle.readCache.value(key, as: Value.self, at: stamp) { return kept }
    let value = try await load()
    handle.readCache.keep(value, for: key, at: stamp)
    return value
  }
}
