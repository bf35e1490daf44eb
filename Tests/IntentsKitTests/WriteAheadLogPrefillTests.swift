#if os(Linux)
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

    /// The log's header, then `prefilledFrames` frames of the store's pages (a header of 24 bytes each).
    static func prefilledLength(_ store: any IntentStore) async throws -> Int {
      let pageSize = try await store.read {
        try await $0.raw("PRAGMA page_size").first()?.decode(column: "page_size", as: Int.self)
      }
      return 32 + WriteAheadLog.prefilledFrames * (24 + (try #require(pageSize)))
    }

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

    /// The rows of `t` in the database at `path`, read by a store opened there and closed again.
    static func countReopened(_ path: String) async throws -> Int {
      let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
      do {
        let rows = try await count(store)
        try await store.close()
        return rows
      } catch {
        try? await store.close()
        throw error
      }
    }

    /// The database and its log copied as they are, without the shared-memory index: the files a
    /// process killed now would leave (every write returned is in them), which SQLite recovers.
    static func copyFiles(of path: String, to copy: String) throws {
      for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix) }
    }

    /// Runs `body` with the paths of two fresh databases named `first` and `second`, both removed
    /// after it.
    static func withPaths(_ first: String, _ second: String, _ body: (String, String) async throws -> Void)
      async throws
    {
      let paths = (TemporaryDatabase.path(named: first), TemporaryDatabase.path(named: second))
      defer {
        TemporaryDatabase.remove(paths.0)
        TemporaryDatabase.remove(paths.1)
      }
      try await body(paths.0, paths.1)
    }

    @Test(
      "a store's log is zero-filled at open; commits write over the zeros, and a copy taken without closing recovers every one"
    )
    func prefilledLogKeepsEveryCommit() async throws {
      try await Self.withPaths("wal-prefill", "wal-prefill-copy") { path, copy in
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        let length = try await Self.prefilledLength(store)
        #expect(try Self.logLength(path) == length)
        try await SchemaMigrator.migrate(store, Self.migrations)
        try await Self.insert(300, into: store)
        // The commits went over the zeros: the log did not grow.
        #expect(try Self.logLength(path) == length)
        // SQLite recovers the commits from the log and stops at the zeros after them.
        try Self.copyFiles(of: path, to: copy)
        try await store.close()
        let recovered = try await SQLiteStore.open(path: copy, logger: Logger(label: "test"))
        #expect(try await Self.count(recovered) == 300)
        try await Self.insert(20, into: recovered)
        #expect(try await Self.count(recovered) == 320)
        #expect(try Self.logLength(copy) == length)
        try await recovered.close()
        #expect(try await Self.countReopened(copy) == 320)
      }
    }

    @Test("a log that holds another connection's commits is filled after them, each of them kept")
    func prefillAfterFrames() async throws {
      try await Self.withPaths("wal-prefill-frames", "wal-prefill-frames-copy") { path, copy in
        // Another connection (another process, as far as the log is concerned) commits 100 rows and
        // stays open, so the log and its frames are still there when the store opens.
        let other = try SQLiteHandle(path: path)
        defer { other.close() }
        try other.run("PRAGMA journal_mode=WAL", []) { _ in }
        try other.run("PRAGMA wal_autocheckpoint=0", []) { _ in }
        try other.run("CREATE TABLE t (n INTEGER NOT NULL)", []) { _ in }
        for n in 0..<100 { try other.run("INSERT INTO t (n) VALUES (\(n))", []) { _ in } }
        let before = try Self.logLength(path)
        let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
        let length = try await Self.prefilledLength(store)
        #expect(before > 0 && before < length)
        #expect(try Self.logLength(path) == length)
        #expect(try await Self.count(store) == 100)
        try await Self.insert(10, into: store)
        try Self.copyFiles(of: path, to: copy)
        try await store.close()
        #expect(try await Self.countReopened(copy) == 110)
      }
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
      #expect(try Self.logLength(path) < (try await Self.prefilledLength(store)))
      try other.commit()
      other.close()
      try await Self.insert(5, into: store)
      #expect(try await Self.count(store) == 6)
      try await store.close()
    }

    @Test("a store opened through a symbolic link fills and syncs the log next to the file the link leads to")
    func databaseBehindALink() async throws {
      try await Self.withPaths("wal-prefill-target", "wal-prefill-link") { target, link in
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let store = try await SQLiteStore.open(path: link, logger: Logger(label: "test"))
        #expect(try Self.logLength(target) == (try await Self.prefilledLength(store)))
        #expect(!FileManager.default.fileExists(atPath: link + "-wal"))
        try await SchemaMigrator.migrate(store, Self.migrations)
        // Each write returns once a sync of the log covers it: of the log SQLite writes.
        try await Self.insert(10, into: store)
        #expect(try #require(store.durability).syncs > 0)
        try await store.close()
        #expect(try await Self.countReopened(target) == 10)
      }
    }
  }
#endif
