internal import IntentsKit
internal import Foundation
package import Logging
internal import NIOCore
internal import NIOPosix
package import SQLKit
internal import Synchronization

/// The embedded store: one SQLite file per service, in WAL mode. One writer connection (SQLite has
/// a single writer; transactions run one at a time) and a few reader connections that WAL lets
/// read in parallel with the writer.
///
/// A transaction's statements run in place, on the task that runs it (`SQLiteHandle`). A write
/// commits to the log without waiting on the disk (`synchronous=NORMAL`) and is answered once a
/// sync of the log covers it (`GroupCommit`): a commit acknowledged is on the disk, as with
/// `synchronous=FULL`, but concurrent writes share one sync instead of paying one each, and the
/// write lock is not held while the disk works. A read is answered only once the commits it may
/// have seen are durable too, so no answer shows what a power loss could take back. `BEGIN
/// IMMEDIATE` runs in place when the write lock is free; when another process on the same file
/// holds it, it waits for it on the store's thread pool, holding no thread of the caller's.
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
  /// Nil for an in-memory database, which has no disk to wait for.
  private let groupCommit: GroupCommit?
  package let path: String
  /// How long `BEGIN IMMEDIATE` waits for another process's write lock.
  private static let busyTimeoutMilliseconds: Int32 = 5000

  private init(writer: Lane, readers: [Lane], threadPool: NIOThreadPool, groupCommit: GroupCommit?, path: String) {
    self.writer = writer
    self.readers = readers
    self.threadPool = threadPool
    self.groupCommit = groupCommit
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
      // busy_timeout=0 on the writer: BEGIN IMMEDIATE tries the lock in place, and only when another
      // process holds it waits (`begin()`).
      let writer = try lane([
        "PRAGMA journal_mode=WAL", memory ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
        "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=0",
      ])
      var readerLanes: [Lane] = []
      var groupCommit: GroupCommit?
      if !memory {
        for _ in 0..<max(1, readers) {
          readerLanes.append(
            try lane([
              "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=\(busyTimeoutMilliseconds)", "PRAGMA query_only=ON",
            ]))
        }
        let log = try WriteAheadLog(databasePath: path)
        log.observeCommits(of: writer.handle)
        groupCommit = GroupCommit(log: log)
      }
      return SQLiteStore(
        writer: writer, readers: readerLanes, threadPool: threadPool, groupCommit: groupCommit, path: path)
    } catch {
      try? await threadPool.shutdownGracefully()
      throw error
    }
  }

  package func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await StoreTracing.span("store write", system: "sqlite") { try await writeTransaction(body) }
  }

  package func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await StoreTracing.span("store read", system: "sqlite") { try await readTransaction(body) }
  }

  private func writeTransaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    let (result, sequence) = try await writer.lock.withLock {
      try await begin()
      do {
        let result = try await body(writer.database)
        try writer.handle.run("COMMIT", []) { _ in }
        return (result, groupCommit?.committed())
      } catch {
        try? writer.handle.run("ROLLBACK", []) { _ in }
        writer.handle.readCache.clear()
        throw error
      }
    }
    if let sequence { try await groupCommit?.waitUntilDurable(sequence) }
    return result
  }

  private func readTransaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    let lane =
      readers.isEmpty ? writer : readers[nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
    let result = try await lane.lock.withLock {
      try lane.handle.begin("BEGIN DEFERRED")
      do {
        let result = try await body(lane.database)
        try lane.handle.run("COMMIT", []) { _ in }
        return result
      } catch {
        try? lane.handle.run("ROLLBACK", []) { _ in }
        lane.handle.readCache.clear()
        throw error
      }
    }
    // What the read saw may include commits not yet on the disk: answer once they are.
    try await groupCommit?.waitUntilCommittedAreDurable()
    return result
  }

  /// Takes the write lock: in place when it is free; when another process holds it, on the
  /// store's thread pool, waiting up to `busyTimeoutMilliseconds` for it.
  private func begin() async throws {
    do {
      try writer.handle.begin("BEGIN IMMEDIATE")
    } catch let error as SQLiteStatementError where error.isBusy {
      let handle = writer.handle
      try await onThreadPool {
        handle.setBusyTimeout(milliseconds: Self.busyTimeoutMilliseconds)
        defer { handle.setBusyTimeout(milliseconds: 0) }
        try handle.begin("BEGIN IMMEDIATE")
      }
    }
  }

  /// Runs work that may wait on another process's lock on the store's thread pool, whether or not
  /// the task is cancelled: a transaction, once begun, always ends.
  private func onThreadPool(_ work: @escaping @Sendable () throws -> Void) async throws {
    let done = threadPool.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any(), work)
    try await done.get()
  }

  /// How group commit has gone so far in this process.
  struct Durability: Sendable, Equatable {
    /// Write transactions committed.
    var commits: UInt64
    /// Of those, how many are known to be on the disk.
    var durableCommits: UInt64
    /// Syncs of the log that made them so.
    var syncs: UInt64
  }

  /// Commits and syncs so far; nil for an in-memory store.
  var durability: Durability? { groupCommit?.progress }

  package func close() async throws {
    try await groupCommit?.close()
    for lane in readers + [writer] {
      await lane.lock.withLock { lane.handle.close() }
    }
    try await threadPool.shutdownGracefully()
  }
}
