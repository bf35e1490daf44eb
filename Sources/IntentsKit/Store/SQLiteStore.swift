internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
package import Logging
package import SQLKit
internal import SQLiteKit

/// The embedded store: one SQLite file per service, in WAL mode with `synchronous=FULL` so that a
/// committed transaction survives a crash or power loss. One connection; transactions run one at a
/// time (SQLite has a single writer anyway).
package final class SQLiteStore: IntentStore {
  private let connection: SQLiteConnection
  private let database: any SQLDatabase
  private let lock = AsyncLock()
  package let path: String

  private init(connection: SQLiteConnection, path: String) {
    self.connection = connection
    self.database = connection.sql()
    self.path = path
  }

  /// Opens (creating if needed) the database at `path`; ":memory:" opens a private in-memory database.
  package static func open(path: String, logger: Logger) async throws -> SQLiteStore {
    if path != ":memory:" {
      let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    let storage: SQLiteConnection.Storage = path == ":memory:" ? .memory : .file(path: path)
    let connection = try await SQLiteConnection.open(storage: storage, logger: logger)
    let store = SQLiteStore(connection: connection, path: path)
    for pragma in [
      "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000",
    ] {
      try await store.database.raw(SQLQueryString(pragma)).run()
    }
    return store
  }

  package func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await lock.withLock {
      try await database.raw("BEGIN IMMEDIATE").run()
      do {
        let result = try await body(database)
        try await database.raw("COMMIT").run()
        return result
      } catch {
        try? await database.raw("ROLLBACK").run()
        throw error
      }
    }
  }

  package func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await lock.withLock {
      try await database.raw("BEGIN DEFERRED").run()
      do {
        let result = try await body(database)
        try await database.raw("COMMIT").run()
        return result
      } catch {
        try? await database.raw("ROLLBACK").run()
        throw error
      }
    }
  }

  package func close() async throws {
    try await lock.withLock { try await connection.close() }
  }
}
