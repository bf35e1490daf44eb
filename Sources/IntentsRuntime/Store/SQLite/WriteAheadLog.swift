internal import IntentsKit
internal import NIOPosix
#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#elseif canImport(Darwin)
  internal import Darwin
#endif
internal import Synchronization
internal import VaporCSQLite

/// A store's write-ahead log (`<database>-wal`), as group commit sees it: a file to make durable
/// and, once it has grown, to checkpoint into the database.
///
/// The writer commits with `synchronous=NORMAL`: SQLite writes the commit's frames to the log but
/// does not wait for the disk. `sync()` does that wait for every commit written so far — one
/// `fdatasync` of the log, through a descriptor of our own, for however many commits were made
/// since the last. A checkpoint (SQLite's, PASSIVE, on a connection of its own) copies the log
/// into the database when the log passes `checkpointFrames`; SQLite syncs the log before it copies
/// and the database after, so frames the log later overwrites are already durable. It runs
/// on a thread of its own, beside the syncs: two syncs and a copy take milliseconds, and on the
/// sync thread every commit waiting to be durable would wait for them as well.
///
/// @unchecked Sendable: `descriptor` is used only by `sync()`, which `GroupCommit` calls on its one
/// thread, one at a time, and by `close()` after the last; `checkpointer` only by the checkpoint
/// thread, one checkpoint at a time, and by `close()` once that thread has stopped. `prefill`
/// opens a descriptor of its own, once, before the store hands the log to `GroupCommit`. `frames`
/// and `checkpointing` are atomic.
final class WriteAheadLog: @unchecked Sendable {
  /// SQLite's own default for automatic checkpoints (`wal_autocheckpoint`).
  static let checkpointFrames = 1000

  private let path: String
  private var descriptor: Int32 = -1
  private var checkpointer: SQLiteHandle?
  private let checkpointThread = NIOThreadPool(numberOfThreads: 1)
  /// Whether a checkpoint has been started and has not ended.
  private let checkpointing = Atomic<Bool>(false)
  /// The log's length in frames after the last commit, as SQLite's WAL hook reports it.
  private let frames = Atomic<Int>(0)
  /// Checkpoints that failed (each is tried again once the log has grown past `checkpointFrames`
  /// again; the log keeps every commit durable meanwhile).
  private let failedCheckpoints = Atomic<Int>(0)

  /// The log `writer` writes to (`SQLiteHandle.logPath`: where SQLite keeps it, next to the file a
  /// symbolic link leads to) for the database at `databasePath`. Its checkpoints run on a
  /// connection of its own.
  init(databasePath: String, writer: SQLiteHandle) throws {
    guard let logPath = writer.logPath else {
      throw SQLiteStatementError(code: SQLITE_MISUSE, message: "\(databasePath) has no write-ahead log file")
    }
    path = logPath
    checkpointer = try SQLiteHandle(path: databasePath)
  }

  deinit {
    if descriptor >= 0 { closeDescriptor(descriptor) }
  }

  /// How far `prefill` zero-fills the log, in frames: a checkpoint's worth and a quarter more, for
  /// the commits made while a checkpoint runs (the log starts again from its beginning only once
  /// a checkpoint has copied all of it).
  static let prefilledFrames = checkpointFrames * 5 / 4

  /// Writes zeros over the log from its end to `prefilledFrames` frames, and syncs them. A sync of
  /// a log that grows must also write the file's new length and blocks to the file system's journal
  /// (measured here: ~240 µs a sync of 40 pages appended, ~130 µs overwritten); a log whose blocks
  /// are already written is overwritten in place by SQLite, and each sync carries the frames
  /// alone. PostgreSQL zero-fills its log segments for the same reason (`wal_init_zero`). SQLite
  /// reads frames only up to the first one whose header does not match, so zeros after the last
  /// commit are no log entries; it never shrinks the log (no `journal_size_limit`) but deletes it
  /// when its last connection closes, so this runs at each open.
  ///
  /// Run with the writer's lock held (`BEGIN IMMEDIATE` on `writer`), so no connection of any
  /// process appends to the log, checkpoints it back to its start or truncates it meanwhile;
  /// skipped when another process holds that lock. The zeros go after the file's end only, never
  /// over a frame. If the disk cannot take them, the log is cut back to its length before and the
  /// store runs as it would without them; a failed sync throws (it may have been the report of an
  /// earlier process's unsynced frames, which a later sync would not repeat), as does any other
  /// failure to take the lock: the store would not write either. Linux only: on a file system
  /// that copies on write, blocks written ahead are not the blocks a commit writes.
  func prefill(writer: SQLiteHandle) throws {
    #if os(Linux)
      do {
        try writer.begin("BEGIN IMMEDIATE")
      } catch let error as SQLiteStatementError where error.isBusy {
        return
      }
      do {
        try writeZeros(length: 32 + Self.prefilledFrames * (24 + Int(try writer.integer("PRAGMA page_size"))))
      } catch {
        try? writer.run("ROLLBACK", []) { _ in }
        throw error
      }
      // A writer left holding the lock would keep every other writer out: a failure fails the open.
      try writer.run("ROLLBACK", []) { _ in }
    #endif
  }

  /// Zeros from the log's end to `length` bytes, synced.
  private func writeZeros(length: Int) throws {
    // SQLite made the log when the transaction began.
    let log = open(path, O_RDWR | O_CLOEXEC)
    guard log >= 0 else { throw WriteAheadLogError(operation: "open", path: path) }
    defer { closeDescriptor(log) }
    let end = lseek(log, 0, SEEK_END)
    guard end >= 0 else { throw WriteAheadLogError(operation: "lseek", path: path) }
    let before = Int(end)
    guard before < length else { return }
    let zeros = [UInt8](repeating: 0, count: 256 * 1024)
    var offset = before
    while offset < length {
      let written = zeros.withUnsafeBytes { pwrite(log, $0.baseAddress, min($0.count, length - offset), off_t(offset)) }
      guard written > 0 else {
        if written < 0, errno == EINTR { continue }
        _ = ftruncate(log, off_t(before))
        return
      }
      offset += written
    }
    guard Self.syncData(log) == 0 else {
      let failure = WriteAheadLogError(operation: "fdatasync", path: path)
      _ = ftruncate(log, off_t(before))
      throw failure
    }
  }

  /// Makes `writer` report the log's length after each of its commits (instead of SQLite running
  /// automatic checkpoints inside the commit, which would wait on the disk there).
  func observeCommits(of writer: SQLiteHandle) {
    writer.onWALCommit(Unmanaged.passUnretained(self).toOpaque()) { context, _, _, frames in
      guard let context else { return SQLITE_OK }
      Unmanaged<WriteAheadLog>.fromOpaque(context).takeUnretainedValue().frames.store(
        Int(frames), ordering: .relaxed)
      return SQLITE_OK
    }
  }

  /// Makes every commit written to the log so far durable; starts a checkpoint when the log is long.
  func sync() throws {
    if descriptor < 0 { try openLog() }
    guard Self.syncData(descriptor) == 0 else { throw WriteAheadLogError(operation: "fdatasync", path: path) }
    if frames.load(ordering: .relaxed) >= Self.checkpointFrames { startCheckpoint() }
  }

  /// Copies the log into the database on the checkpoint thread, unless a checkpoint is running.
  private func startCheckpoint() {
    guard checkpointing.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else { return }
    frames.store(0, ordering: .relaxed)
    // Started with the first checkpoint, not with the store: a thread less in an idle service.
    // `start()` again does nothing; no sync (and so no start) follows `close()`.
    checkpointThread.start()
    checkpointThread.submit { [self] work in
      defer { checkpointing.store(false, ordering: .releasing) }
      guard work == .active, let checkpointer else { return }
      do {
        // PASSIVE: copies what no reader still needs, never waits on a lock, never blocks a writer.
        try checkpointer.run("PRAGMA wal_checkpoint(PASSIVE)", []) { _ in }
      } catch {
        failedCheckpoints.add(1, ordering: .relaxed)
      }
    }
  }

  /// Checkpoints that failed so far.
  var checkpointFailures: Int { failedCheckpoints.load(ordering: .relaxed) }

  /// Waits for a running checkpoint, stops the checkpoint thread and closes the log and the
  /// checkpoint's connection.
  func close() async throws {
    try await checkpointThread.shutdownGracefully()
    if descriptor >= 0 { closeDescriptor(descriptor) }
    descriptor = -1
    checkpointer?.close()
    checkpointer = nil
  }

  /// Opens the log, which SQLite created with the writer's first transaction, and syncs its
  /// directory once, so that the log's name survives a power loss as well as its contents.
  private func openLog() throws {
    let opened = open(path, O_RDONLY | O_CLOEXEC)
    guard opened >= 0 else { throw WriteAheadLogError(operation: "open", path: path) }
    descriptor = opened
    let slash = path.lastIndex(of: "/")
    let directoryPath = slash.map { String(path[..<$0]) } ?? "."
    let directory = open(directoryPath.isEmpty ? "/" : directoryPath, O_RDONLY | O_CLOEXEC)
    guard directory >= 0 else { throw WriteAheadLogError(operation: "open", path: directoryPath) }
    defer { closeDescriptor(directory) }
    guard fsync(directory) == 0 else { throw WriteAheadLogError(operation: "fsync", path: directoryPath) }
  }

  private static func syncData(_ descriptor: Int32) -> Int32 {
    #if canImport(Darwin)
      fsync(descriptor)
    #else
      fdatasync(descriptor)
    #endif
  }
}

private func closeDescriptor(_ descriptor: Int32) {
  _ = close(descriptor)
}

/// The log could not be opened or synced: what was committed may not be on the disk.
struct WriteAheadLogError: Error, CustomStringConvertible {
  let operation: String
  let path: String
  let code = errno
  var description: String { "\(operation) of \(path) failed: errno \(code)" }
}
