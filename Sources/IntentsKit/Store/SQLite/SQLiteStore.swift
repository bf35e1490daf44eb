internal import Foundation
package import Logging
internal import NIOCore
internal import NIOPosix
package import SQLKit
internal import Synchronization

/// The embedded store: one SQLite file per service, in WAL mode with `synchronous=FULL` so that a
/// committed transaction survives a crash or power loss. One writer connection (SQLite has a single
/// writer; transactions run one at a time) and a few reader connections that WAL lets read in
/// parallel with the writer.
///
/// A transaction's statements run in place, on the task that runs it (`SQLiteHandle`): reads never
/// leave it. What may wait on the disk or on another process — a write's `BEGIN IMMEDIATE` (another
/// replica on the same file may hold the write lock) and its `COMMIT` (the fsync) — runs on the
/// store's thread pool, so that it holds no thread of the caller's.
package final class SQLiteStore: IntentStore {
  /// A connection and the lock that keeps one transaction on it at a time.
  private struct Lane: Sendable {
    let handle: SQLiteHandle
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
    let threadPool = NIOThreadPool(numberOfThreads: 1)
    threadPool.start()
    let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
    do {
      func lane(_ pragmas: [String]) throws -> Lane {
        let handle = try SQLiteHandle(path: path)
        for pragma in pragmas { try handle.run(pragma, []) { _ in } }
        return Lane(handle: handle, database: SQLiteLaneDatabase(handle: handle, logger: logger, eventLoop: eventLoop))
      }
      let writer = try lane([
        "PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000",
      ])
      var readerLanes: [Lane] = []
      if !memory {
        for _ in 0..<max(1, readers) {
          readerLanes.append(
            try lane(["PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000", "PRAGMA query_only=ON"]))
        }
      }
      return SQLiteStore(writer: writer, readers: readerLanes, threadPool: threadPool, path: path)
    } catch {
      try? await threadPool.shutdownGracefully()
      throw error
    }
  }

  package func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await writer.lock.withLock {
      try await onThreadPool("BEGIN IMMEDIATE", on: writer)
      do {
        let result = try await body(writer.database)
        try await onThreadPool("COMMIT", on: writer)
        return result
      } catch {
        try? writer.handle.run("ROLLBACK", []) { _ in }
        throw error
      }
    }
  }

  package func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    let lane =
      readers.isEmpty ? writer : readers[nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
    return try await lane.lock.withLock {
      try lane.handle.run("BEGIN DEFERRED", []) { _ in }
      do {
        let result = try await body(lane.database)
        try lane.handle.run("COMMIT", []) { _ in }
        return result
      } catch {
        try? lane.handle.run("ROLLBACK", []) { _ in }
        throw error
      }
    }
  }

  /// Runs a statement that may wait (on the disk, or on another process's lock) on the store's
  /// thread pool, whether or not the task is cancelled: a transaction, once begun, always ends.
  private func onThreadPool(_ statement: String, on lane: Lane) async throws {
    let handle = lane.handle
    let done = threadPool.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any()) {
      try handle.run(statement, []) { _ in }
    }
    try await done.get()
  }

  package func close() async throws {
    for lane in readers + [writer] {
      await lane.lock.withLock { lane.handle.close() }
    }
    try await threadPool.shutdownGracefully()
  }
}
