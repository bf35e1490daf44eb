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
/// Writes commit in groups: a writer that finds others waiting for the writer leaves its
/// transaction open for them, each write in its own savepoint (one that throws is undone alone),
/// and the last in line commits them all with one fsync; every writer is answered only once the
/// commit that holds its write is durable. Under load one fsync carries many writes; alone, a
/// write commits at once.
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

  /// The write transaction writers share while one is open (group commit), and how many writers
  /// have done their part in it and wait for its COMMIT to be answered.
  private final class CommitBatch: @unchecked Sendable {
    var waiting: [CheckedContinuation<Void, any Error>] = []
    var members = 0
  }

  /// A value touched only while holding the writer's lock.
  private final class UnderWriterLock<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
  }

  /// At most this many writes share one commit.
  private static let maxBatch = 64

  private let writer: Lane
  private let readers: [Lane]
  private let openBatch = UnderWriterLock<CommitBatch?>(nil)
  /// Writers waiting for the writer's lock: while there are any, a writer leaves the transaction
  /// open for them instead of committing it.
  private let waitingWriters = Atomic<Int>(0)
  private let commits = Atomic<Int>(0)

  /// How many write transactions have committed: fewer than the writes under load.
  package var commitCount: Int { commits.load(ordering: .relaxed) }
  /// How many writers wait for the writer now.
  package var waitingWriterCount: Int { waitingWriters.load(ordering: .relaxed) }
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
    // In memory, reads share the writer's connection: a transaction left open for the next writer
    // would be theirs too. Each write commits alone there.
    guard !readers.isEmpty else { return try await soloWrite(body) }
    waitingWriters.add(1, ordering: .relaxed)
    await writer.lock.lock()
    waitingWriters.subtract(1, ordering: .relaxed)
    let batch: CommitBatch
    if let open = openBatch.value {
      batch = open
    } else {
      do {
        try await onThreadPool("BEGIN IMMEDIATE", on: writer)
      } catch {
        writer.lock.unlock()
        throw error
      }
      batch = CommitBatch()
      openBatch.value = batch
    }
    // This write's own part of the shared transaction: undone alone when it throws.
    let outcome: Result<T, any Error>
    do {
      try writer.handle.run("SAVEPOINT intentmesh_write", []) { _ in }
      let value = try await body(writer.database)
      try writer.handle.run("RELEASE intentmesh_write", []) { _ in }
      outcome = .success(value)
    } catch {
      try? writer.handle.run("ROLLBACK TO intentmesh_write", []) { _ in }
      try? writer.handle.run("RELEASE intentmesh_write", []) { _ in }
      outcome = .failure(error)
    }
    if waitingWriters.load(ordering: .relaxed) > 0, batch.members < Self.maxBatch {
      // Another writer waits: it carries the transaction on, and whoever is last commits it.
      guard case .success(let value) = outcome else {
        writer.lock.unlock()
        return try outcome.get()
      }
      try await withCheckedThrowingContinuation { (committed: CheckedContinuation<Void, any Error>) in
        batch.waiting.append(committed)
        batch.members += 1
        writer.lock.unlock()
      }
      return value
    }
    let committed = await commit(batch)
    writer.lock.unlock()
    try committed.get()
    return try outcome.get()
  }

  /// Commits the open transaction (its one fsync makes every write in it durable), or rolls it
  /// back when the commit fails, and answers every writer waiting on it. Called holding the
  /// writer's lock.
  private func commit(_ batch: CommitBatch) async -> Result<Void, any Error> {
    openBatch.value = nil
    let committed: Result<Void, any Error>
    do {
      try await onThreadPool("COMMIT", on: writer)
      commits.add(1, ordering: .relaxed)
      committed = .success(())
    } catch {
      try? writer.handle.run("ROLLBACK", []) { _ in }
      committed = .failure(error)
    }
    for waiting in batch.waiting { waiting.resume(with: committed) }
    return committed
  }

  private func soloWrite<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
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
    await writer.lock.withLock {
      // Writes that wait for a commit the next writer would have made get it now.
      if let batch = openBatch.value { _ = await commit(batch) }
    }
    for lane in readers + [writer] {
      await lane.lock.withLock { lane.handle.close() }
    }
    try await threadPool.shutdownGracefully()
  }
}
