import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import SQLKit
import Testing

@Suite("SQLite store: the log zero-filled ahead")
struct WriteAheadLogPrefillTests {
  static let migrations = [SchemaMigration(id: "t-1", statements: ["CREATE TABLE t (n INTEGER NOT NULL)"])]
  /// The log's header, then `prefilledFrames` frames of SQLite's default 4 KiB pages (a header of 24 bytes each).
  static let prefilledLength = 32 + WriteAheadLog.prefilledFrames * (24 + 4096)

  static func logLength(_ path: String) throws -> Int {
    try #require(try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int)
  }

  static func count(_ store: any IntentStore) async throws -> Int {
    try await store.read {
      try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) ?? -1
    }
  }

  static func insert(_ count: Int, into store: any IntentStore) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for n in 0..<count {
        group.addTask { try await store.write { try await $0.raw("INSERT INTO t (n) VALUES (\(bind: n))").run() } }
      }
      try await group.waitForAll()
    }
  }

  @Test(
    "a store's log is zero-filled at open; commits write over the zeros, and a copy taken without closing recovers every one"
  )
  func prefilledLogKeepsEveryCommit() async throws {
    let path = TemporaryDatabase.path(named: "wal-prefill")
    let copy = TemporaryDatabase.path(named: "wal-prefill-copy")
    defer {
      TemporaryDatabase.remove(path)
      TemporaryDatabase.remove(copy)
    }
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    #expect(try Self.logLength(path) == Self.prefilledLength)
    try await SchemaMigrator.migrate(store, Self.migrations)
    try await Self.insert(300, into: store)
    // The commits went over the zeros: the log did not grow.
    #expect(try Self.logLength(path) == Self.prefilledLength)
    // Every write returned durable; the files as a power cut would leave them (no -shm, no checkpoint
    // at close): SQLite recovers the commits from the log and stops at the zeros after them.
    for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
    try await store.close()
    let recovered = try await SQLiteStore.open(path: copy, logger: Logger(label: "test"))
    #expect(try await Self.count(recovered) == 300)
    try await Self.insert(20, into: recovered)
    #expect(try await Self.count(recovered) == 320)
    #expect(try Self.logLength(copy) == Self.prefilledLength)
    try await recovered.close()
    let reopened = try await SQLiteStore.open(path: copy, logger: Logger(label: "test"))
    #expect(try await Self.count(reopened) == 320)
    try await reopened.close()
  }

  @Test(
    "while another connection holds the write lock, the store opens without filling the log and writes once the lock is free"
  )
  func prefillSkippedWhileAnotherWriterHoldsTheLock() async throws {
    let path = TemporaryDatabase.path(named: "wal-prefill-busy")
    defer { TemporaryDatabase.remove(path) }
    let other = try SQLiteHandle(path: path)
    try other.run("PRAGMA journal_mode=WAL", []) { _ in }
    try other.run("CREATE TABLE t (n INTEGER NOT NULL)", []) { _ in }
    try other.begin("BEGIN IMMEDIATE")
    try other.run("INSERT INTO t (n) VALUES (1)", []) { _ in }
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    #expect(try Self.logLength(path) < Self.prefilledLength)
    try other.commit()
    other.close()
    try await Self.insert(5, into: store)
    #expect(try await Self.count(store) == 6)
    try await store.close()
  }
}
