internal import Foundation
package import Logging
internal import NIOCore
internal import NIOPosix
package import SQLKit
internal import SQLiteKit
internal import Synchronization

/// The embedded store: one SQLite file per service, in WAL mode with `synchronous=FULL` so that a
/// committed transaction survives a crash or power loss. One writer connection (SQLite has a single
/// writer; transactions run one at a time) and a few reader connections that WAL lets read in
/// parallel with the writer, each on the store's own thread pool.
package final class SQLiteStore: IntentStore {
  /// A connection and the lock that keeps one transaction on it at a time.
  private struct Lane: Sendable {
    let connection: SQLiteConnection
    let database: any SQLDatabase
    let lock = AsyncLock()
  }

  private let writer: Lane
  private let readers: [Lane]
  private let nextReader = Atomic<Int>(0)
  private let threadPool: NIOThreadPool
  package let path: String

  private init(writer: Lane, readers: [Lane], threadPool: NIOThreadPool, path: String) {
    self.writer = writer
    self.readers = readers
    self.threadPool = threadPool
    self.path = path
  }

  /// Opens (creating if needed) the database at `path`; ":memory:" opens a private in-memory
  /// database, which has one connection for reads and writes.
  package static func open(path: String, logger: Logger, readers: Int = 4) async throws -> SQLiteStore {
    let memory = path == ":memory:"
    if !memory {
      let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }
    let threadPool = NIOThreadPool(numberOfThreads: memory ? 1 : readers + 1)
    threadPool.start()
    do {
      let storage: SQLiteConnection.Storage = memory ? .memory : .file(path: path)
      func lane(_ pragmas: [String]) async throws -> Lane {
        let connection = try await SQLiteConnection.open(
          storage: storage, threadPool: threadPool, logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
        let lane = Lane(connection: connection, database: connection.sql())
        for pragma in pragmas { try await lane.database.raw(SQLQueryString(pragma)).run() }
        return lane
      }
      let writer = try await lane([
        "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000",
      ])
      var readerLanes: [Lane] = []
      if !memory {
        for _ in 0..<max(1, readers) {
          readerLanes.append(
            try await lane(["PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000", "PRAGMA query_only=ON"]))
        }
      }
      return SQLiteStore(writer: writer, readers: readerLanes, threadPool: threadPool, path: path)
    } catch {
      try? await threadPool.shutdownGracefully()
      throw error
    }
  }

  package func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await transaction(on: writer, begin: "BEGIN IMMEDIATE", body)
  }

  package func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    guard !readers.isEmpty else { return try await transaction(on: writer, begin: "BEGIN DEFERRED", body) }
    let index = nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count
    return try await transaction(on: readers[index], begin: "BEGIN DEFERRED", body)
  }

  private func transaction<T: Sendable>(
    on lane: Lane, begin: String, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    try await lane.lock.withLock {
      try await Self.run(begin, on: lane)
      do {
        let result = try await body(lane.database)
        try await Self.run("COMMIT", on: lane)
        return result
      } catch {
        try? await Self.run("ROLLBACK", on: lane)
        throw error
      }
    }
  }

  /// Runs a transaction-control statement whether or not the task is cancelled: the async query
  /// API skips work whose task is cancelled, and a skipped ROLLBACK would leave the connection
  /// inside a transaction its next caller cannot begin.
  private static func run(_ statement: String, on lane: Lane) async throws {
    let done: EventLoopFuture<[SQLiteRow]> = lane.connection.query(statement, [])
    _ = try await done.get()
  }

  package func close() async throws {
    for lane in readers + [writer] {
      try await lane.lock.withLock { try await lane.connection.close() }
    }
    try await threadPool.shutdownGracefully()
  }
}
