internal import IntentsKit
internal import IntentMeshCore
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
/// A transaction's statements run in place, on the task that runs it (`SQLiteHandle`). Writes that
/// queue for the writer while one runs share its SQLite transaction, each after the first in a
/// savepoint of its own, and the last commits for all (`WriteBatchState`): a page many of them
/// change is written to the log once. A commit goes to the log without waiting on the disk
/// (`synchronous=NORMAL`) and is answered once a sync of the log covers it (`GroupCommit`): a
/// write acknowledged is on the disk, as with `synchronous=FULL`, but concurrent writes share one
/// sync instead of paying one each, and the write lock is not held while the disk works. A read is
/// answered only once the commits it may have seen are durable too, so no answer shows what a
/// power loss could take back. `BEGIN IMMEDIATE` runs in place when the write lock is free; when
/// another process on the same file holds it, it waits for it on the store's thread pool, holding
/// no thread of the caller's.
package final class SQLiteStore: IntentStore {
  /// A connection and the lock that keeps one transaction on it at a time.
  private struct Lane: Sendable {
    let handle: SQLiteHandle
    let database: any SQLDatabase
    let lock = AsyncLock()
  }

  private let writer: Lane
  /// The SQLite transaction the writer's lock holder continues, left open by the last holder for
  /// the writes that queued behind it; read and changed only while holding that lock.
  private let openBatch = Mutex<WriteBatch?>(nil)
  /// A batch commits once this many writes have entered it, even if more wait.
  private static let maxWritesPerBatch = 64
  /// Writes whose work was committed.
  private let writes = Atomic<UInt64>(0)
  private let readers: [Lane]
  private let nextReader = Atomic<Int>(0)
  private let threadPool: NIOThreadPool
  /// Nil for an in-memory database, which has no disk to wait for.
  private let groupCommit: GroupCommit?
  package let path: String
  /// How long `BEGIN IMMEDIATE` waits for another process's write lock. SQLite's busy handler is
  /// not fair: a process with writes queued back to back takes the lock again right after each
  /// commit, and the other one gets it in a gap or when that queue drains — which on a loaded
  /// machine with slow syncs took over 5 s (the two-replica test failed so). Long enough for a full
  /// queue to drain; a handover between the processes would make it fair.
  private static let busyTimeoutMilliseconds: Int32 = 20_000

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
      // Every user's data and the confirmation key: readable by this user only (a folder made for
      // it 0700; one that exists is the operator's). SQLite makes the log and its index with the
      // database file's mode.
      try PrivateFiles.directory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
      try PrivateFiles.file(path)
      for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
        try PrivateFiles.file(path + suffix)
      }
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
      // process holds it waits (`begin()`). temp_store=MEMORY keeps each write's savepoint journal
      // in memory: on a file, SQLite spills it to a new temporary file once it passes 64 KiB (a
      // payment's pages do) and writes every changed page there before changing it.
      let writer = try lane([
        "PRAGMA journal_mode=WAL", memory ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL",
        "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=0", "PRAGMA temp_store=MEMORY",
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
        let log = try WriteAheadLog(databasePath: path, writer: writer.handle)
        // Megabytes written and synced: on the store's thread, not the caller's.
        let writerHandle = writer.handle
        try await threadPool.runIfActive(eventLoop: eventLoop) { try log.prefill(writer: writerHandle) }.get()
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

  /// Versions every table the migrations made (`TableVersioning`), so that what a cached read keeps
  /// is dropped only by writes to the tables it read.
  package func schemaDidChange() async throws {
    let writerHandle = writer.handle
    try await write { database in
      try await TableVersioning.install(in: database)
      // The writer moves the versions itself from now on, if the schema lets it.
      try writerHandle.chooseVersionBumping()
    }
    // The writer's own schema changes do not move its stamp (no rows changed, and its data version
    // moves only with other connections' commits): what it kept before them goes.
    writer.handle.readCache.clear()
  }

  package func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    try await StoreTracing.span("store read", system: "sqlite") { try await readTransaction(body) }
  }

  private func writeTransaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    let (result, batch) = try await writer.lock.withLock {
      let batch = try await continuedOrNewBatch()
      // The batch's first write needs no savepoint: when it fails, the transaction holds nothing
      // else to keep, and is rolled back whole.
      let savepoint = batch.members > 0
      batch.enter()
      let result: T
      do {
        if savepoint { try writer.handle.run("SAVEPOINT write", []) { _ in } }
        result = try await body(writer.database)
        if savepoint { try writer.handle.run("RELEASE write", []) { _ in } }
      } catch {
        leave(batch, after: error, toSavepoint: savepoint)
        endOrLeaveOpen(batch)
        throw error
      }
      batch.join()
      endOrLeaveOpen(batch)
      return (result, batch)
    }
    let sequence = try await batch.committed()
    if let sequence { try await groupCommit?.waitUntilDurable(sequence) }
    return result
  }

  /// The batch the last holder of the writer's lock left open, or a new one (`BEGIN IMMEDIATE`).
  private func continuedOrNewBatch() async throws -> WriteBatch {
    if let open = openBatch.withLock({ $0 }), open.isOpen { return open }
    try await begin()
    do {
      try writer.handle.checkVersionBumping()
    } catch {
      try? writer.handle.run("ROLLBACK", []) { _ in }
      throw error
    }
    let batch = WriteBatch()
    openBatch.withLock { $0 = batch }
    return batch
  }

  /// Undoes the work of a write that failed: back to its savepoint, the batch's other writes kept;
  /// the whole batch fails when the write was its first (and so has no savepoint), when SQLite has
  /// ended the transaction itself (as it may after an I/O or full-disk error) or when the savepoint
  /// cannot be undone.
  private func leave(_ batch: WriteBatch, after error: any Error, toSavepoint savepoint: Bool) {
    defer { writer.handle.readCache.clear() }
    guard writer.handle.inTransaction else {
      batch.fail(error)
      return
    }
    guard savepoint else {
      try? writer.handle.run("ROLLBACK", []) { _ in }
      batch.fail(error)
      return
    }
    do {
      try writer.handle.run("ROLLBACK TO write", []) { _ in }
      try writer.handle.run("RELEASE write", []) { _ in }
    } catch {
      try? writer.handle.run("ROLLBACK", []) { _ in }
      batch.fail(error)
    }
  }

  /// With the writer's lock still held: leaves the batch open for the write waiting for the lock,
  /// if one is and the batch has room, or ends it — `COMMIT`, numbered for group commit — and
  /// wakes its writes. An in-memory store reads on its writer's connection too, so what waits for
  /// that lock may be a read: it has no disk to share a sync of, and commits each write alone.
  private func endOrLeaveOpen(_ batch: WriteBatch) {
    guard batch.isOpen else {
      openBatch.withLock { $0 = nil }
      return
    }
    if groupCommit != nil, writer.lock.waiting > 0, batch.members < Self.maxWritesPerBatch { return }
    endOpenBatch()
  }

  /// Commits the open batch, if any (the writer's lock held).
  private func endOpenBatch() {
    guard let batch = openBatch.withLock({ $0.take() }), batch.isOpen else { return }
    // Numbered before COMMIT: a reader may see the commit before this thread is back from it.
    let sequence = groupCommit?.beginCommit()
    do {
      try writer.handle.commit()
    } catch {
      try? writer.handle.run("ROLLBACK", []) { _ in }
      if let sequence { groupCommit?.commitEnded(sequence, succeeded: false) }
      writer.handle.readCache.clear()
      batch.fail(error)
      return
    }
    writes.add(UInt64(batch.joined), ordering: .relaxed)
    if let sequence { groupCommit?.commitEnded(sequence, succeeded: true) }
    batch.commit(sequence: sequence)
  }

  private func readTransaction<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
    let lane =
      readers.isEmpty ? writer : readers[nextReader.wrappingAdd(1, ordering: .relaxed).oldValue % readers.count]
    // A reader's snapshot waits for its first statement: a read answered from the cache alone
    // takes none (`DeferredSnapshot`). The writer's connection (an in-memory store's reads) may
    // have writes of its own to see, and takes its snapshot at once.
    let result = try await lane.lock.withLock {
      try await read(on: lane, deferringSnapshot: !readers.isEmpty, body)
    }
    // What the read saw may include commits not yet on the disk: answer once they are.
    try await groupCommit?.waitUntilCommittedAreDurable()
    return result
  }

  /// Runs `body` in a read transaction on `lane` (its lock held); once more, its snapshot taken
  /// first, when the deferred snapshot moved under the values it had answered from the cache —
  /// whether the body let that error through or not.
  private func read<T: Sendable>(
    on lane: Lane, deferringSnapshot: Bool, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    try lane.handle.beginRead(deferringSnapshot: deferringSnapshot)
    let result: T
    do {
      result = try await body(lane.database)
      if lane.handle.snapshotMoved { throw SnapshotMovedError() }
      try lane.handle.endRead()
    } catch {
      let moved = lane.handle.snapshotMoved
      lane.handle.abandonRead()
      if moved { return try await read(on: lane, deferringSnapshot: false, body) }
      lane.handle.readCache.clear()
      throw error
    }
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
    /// Writes committed (`write` calls whose work happened).
    var writes: UInt64
    /// SQLite transactions committed: each carries one or more writes.
    var commits: UInt64
    /// The number of the last commit known to be on the disk: commits are numbered from 1, and a
    /// `COMMIT` that failed keeps its number, so without failures, how many of `commits` are.
    var durableCommits: UInt64
    /// Syncs of the log that made them so.
    var syncs: UInt64
    /// Checkpoints of the log into the database that failed (each tried again later).
    var failedCheckpoints: UInt64 = 0
  }

  /// Read transactions of the reader connections that took a deferred snapshot (for tests).
  func deferredSnapshotsTaken() async -> Int {
    var taken = 0
    for lane in readers { taken += await lane.lock.withLock { lane.handle.deferredSnapshotsTaken } }
    return taken
  }

  /// How many writes wait for the writer's lock.
  var writesWaiting: Int { writer.lock.waiting }

  /// Writes, commits and syncs so far; nil for an in-memory store.
  var durability: Durability? {
    guard var progress = groupCommit?.progress else { return nil }
    progress.writes = writes.load(ordering: .relaxed)
    return progress
  }

  package func close() async throws {
    // A batch left open for a write that queued behind it is ended by that write; this only
    // guards against the close itself being the one that queued.
    await writer.lock.withLock { endOpenBatch() }
    try await groupCommit?.close()
    for lane in readers + [writer] {
      await lane.lock.withLock { lane.handle.close() }
    }
    try await threadPool.shutdownGracefully()
  }
}
