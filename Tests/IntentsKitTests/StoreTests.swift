import IntentMeshProtos
import SwiftProtobuf
import MessagingProtos
import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import NIOCore
import SQLKit
import Testing

@Suite("SQLite store")
struct StoreTests {
  func withStore<T: Sendable>(_ body: (SQLiteStore, String) async throws -> T) async throws -> T {
    let path = TemporaryDatabase.path(named: "store-test")
    defer { TemporaryDatabase.remove(path) }
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    do {
      let result = try await body(store, path)
      try await store.close()
      return result
    } catch {
      try? await store.close()
      throw error
    }
  }

  static let migrations = [SchemaMigration(id: "t-1", statements: ["CREATE TABLE t (n INTEGER NOT NULL)"])]

  static func count(_ store: any IntentStore) async throws -> Int {
    try await store.read {
      try await $0.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) ?? -1
    }
  }

  @Test("runs in WAL mode; the writer commits to the log and group commit syncs it")
  func durabilitySettings() async throws {
    try await withStore { store, _ in
      let mode = try await store.read {
        try await $0.raw("PRAGMA journal_mode").first()?.decode(column: "journal_mode", as: String.self)
      }
      let (sync, temporary) = try await store.write { database in
        (
          try await database.raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self),
          try await database.raw("PRAGMA temp_store").first()?.decode(column: "temp_store", as: Int.self)
        )
      }
      #expect(mode == "wal")
      #expect(sync == 1)
      // 2 = MEMORY: savepoint journals never spill to a temporary file.
      #expect(temporary == 2)
      let durability = try #require(store.durability)
      #expect(
        (durability.writes, durability.commits, durability.durableCommits, durability.syncs) == (1, 1, 1, 1))
    }
  }

  @Test("a write returns only once a sync covers its commit; concurrent writes share commits and syncs")
  func groupCommit() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      let before = try #require(store.durability)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for n in 0..<200 {
          group.addTask {
            // Inside the transaction, the commits before it are counted: its own is a later one.
            let sequence = try await store.write { database in
              try await database.raw("INSERT INTO t (n) VALUES (\(bind: n))").run()
              return (store.durability?.commits ?? 0) + 1
            }
            #expect(try #require(store.durability).durableCommits >= sequence)
          }
        }
        try await group.waitForAll()
      }
      let after = try #require(store.durability)
      #expect(after.writes == before.writes + 200)
      #expect(after.commits > before.commits)
      #expect(after.commits - before.commits <= 200)
      #expect(after.durableCommits == after.commits)
      #expect(after.syncs > before.syncs)
      #expect(after.syncs - before.syncs <= after.commits - before.commits)
      #expect(try await Self.count(store) == 200)
    }
  }

  /// Runs `first` as a write that holds the writer until `queued` writes wait behind it, then runs
  /// them all: those writes share the first one's SQLite transaction.
  static func batch<T: Sendable>(
    _ store: SQLiteStore, first: @escaping @Sendable (any SQLDatabase) async throws -> Void,
    firstAfterRelease: @escaping @Sendable () throws -> Void = {},
    queued: [@Sendable (any SQLDatabase) async throws -> T]
  ) async -> (first: Result<Void, any Error>, queued: [Result<T, any Error>]) {
    // The first write holds the writer before any other is started.
    let held = await HeldWrite(store, first: first, afterRelease: firstAfterRelease)
    var results: [Int: Result<T, any Error>] = [:]
    await withTaskGroup(of: (Int, Result<T, any Error>).self) { group in
      for (index, body) in queued.enumerated() {
        // One at a time, so that they queue in this order.
        try? await waitUntil("write \(index) queues", limit: .seconds(60)) { store.writesWaiting == index }
        group.addTask {
          do { return (index, .success(try await store.write(body))) } catch { return (index, .failure(error)) }
        }
      }
      try? await waitUntil("every write queues", limit: .seconds(60)) { store.writesWaiting == queued.count }
      held.release()
      for await (index, result) in group { results[index] = result }
    }
    let firstResult: Result<Void, any Error>
    do { firstResult = .success(try await held.head.value) } catch { firstResult = .failure(error) }
    return (firstResult, queued.indices.map { results[$0]! })
  }

  /// A write that runs `first`, then holds the writer until `release()`; made once it holds it.
  struct HeldWrite {
    let head: Task<Void, any Error>
    let release: @Sendable () -> Void

    /// `afterRelease` runs once the writer is released, still inside the write.
    init(
      _ store: SQLiteStore, first: @escaping @Sendable (any SQLDatabase) async throws -> Void,
      afterRelease: @escaping @Sendable () throws -> Void = {}
    ) async {
      let (gate, open) = AsyncStream.makeStream(of: Void.self)
      let (holding, held) = AsyncStream.makeStream(of: Void.self)
      head = Task {
        try await store.write { database in
          try await first(database)
          held.yield()
          for await _ in gate { break }
          try afterRelease()
        }
      }
      release = { open.yield() }
      for await _ in holding { break }
    }
  }

  static func insert(_ n: Int) -> @Sendable (any SQLDatabase) async throws -> Void {
    { database in try await database.raw("INSERT INTO t (n) VALUES (\(bind: n))").run() }
  }

  static func numbers(_ store: any IntentStore) async throws -> [Int] {
    try await store.read { database in
      try await database.raw("SELECT n FROM t ORDER BY n").all().map { try $0.decode(column: "n", as: Int.self) }
    }
  }

  @Test("writes that queue behind a running one share its SQLite transaction: one commit, one sync")
  func writesQueuedShareACommit() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      let before = try #require(store.durability)
      let outcome = await Self.batch(store, first: Self.insert(0), queued: (1...10).map(Self.insert))
      #expect((try? outcome.first.get()) != nil)
      #expect(outcome.queued.allSatisfy { (try? $0.get()) != nil })
      let after = try #require(store.durability)
      #expect(after.writes == before.writes + 11)
      #expect(after.commits == before.commits + 1)
      #expect(after.durableCommits == after.commits)
      #expect(try await Self.numbers(store) == Array(0...10))
    }
  }

  @Test("a write that fails inside a batch is undone alone; the writes before and after it stay")
  func failedWriteInBatchIsUndoneAlone() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      struct Boom: Error {}
      let failing: @Sendable (any SQLDatabase) async throws -> Void = { database in
        try await database.raw("INSERT INTO t (n) VALUES (2)").run()
        try await database.raw("INSERT INTO t (n) VALUES (20)").run()
        throw Boom()
      }
      let outcome = await Self.batch(store, first: Self.insert(0), queued: [Self.insert(1), failing, Self.insert(3)])
      #expect((try? outcome.first.get()) != nil)
      #expect((try? outcome.queued[0].get()) != nil)
      #expect(throws: Boom.self) { try outcome.queued[1].get() }
      #expect((try? outcome.queued[2].get()) != nil)
      #expect(try await Self.numbers(store) == [0, 1, 3])
    }
  }

  @Test("the first write of a batch (without a savepoint) that fails is undone whole; the writes queued behind it land")
  func failedFirstWriteOfBatch() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      let before = try #require(store.durability)
      struct Boom: Error {}
      let outcome = await Self.batch(
        store, first: Self.insert(0), firstAfterRelease: { throw Boom() }, queued: [Self.insert(1), Self.insert(2)])
      #expect(throws: Boom.self) { try outcome.first.get() }
      #expect(outcome.queued.allSatisfy { (try? $0.get()) != nil })
      #expect(try await Self.numbers(store) == [1, 2])
      // The queued writes began a transaction of their own, and share it.
      let after = try #require(store.durability)
      #expect(after.writes == before.writes + 2)
      #expect(after.commits == before.commits + 1)
    }
  }

  @Test("a statement's changed rows are counted by SQLite, or else by the rows it returns")
  func changedRows() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      try await store.write { database in
        for n in [1, 2, 3] { try await Self.insert(n)(database) }
        #expect(database is any ChangeCountingDatabase)
        // One database that counts, and the same through a wrapper that does not (as PostgreSQL).
        for each in [database, UncountedDatabase(database)] {
          #expect(try await each.changedRows(by: "UPDATE t SET n = n + 10 WHERE n >= 2") == 2)
          #expect(try await each.changedRows(by: "UPDATE t SET n = n + 10 WHERE n > 100") == 0)
          #expect(try await each.changedRows(by: "UPDATE t SET n = n - 10 WHERE n >= 10") == 2)
        }
      }
      #expect(try await Self.numbers(store) == [1, 2, 3])
    }
  }

  /// An `SQLDatabase` that forwards every statement and counts no changes itself.
  struct UncountedDatabase: SQLDatabase {
    let base: any SQLDatabase
    init(_ base: any SQLDatabase) { self.base = base }
    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var dialect: any SQLDialect { base.dialect }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void)
      -> EventLoopFuture<Void>
    { base.execute(sql: query, onRow) }
  }

  @Test("a failing write in a batch that changed far more than 64 KiB of pages is undone alone")
  func largeFailedWriteInBatchIsUndoneAlone() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      // ~20,000 rows (a few hundred KiB of pages) that the failing write then changes, every one.
      try await store.write { database in
        try await database.raw(
          "WITH RECURSIVE c(x) AS (SELECT 100 UNION ALL SELECT x + 1 FROM c WHERE x < 20099) INSERT INTO t (n) SELECT x FROM c"
        ).run()
      }
      struct Boom: Error {}
      let failing: @Sendable (any SQLDatabase) async throws -> Void = { database in
        try await database.raw("UPDATE t SET n = n + 1000000").run()
        throw Boom()
      }
      let outcome = await Self.batch(store, first: Self.insert(1), queued: [failing, Self.insert(2)])
      #expect((try? outcome.first.get()) != nil)
      #expect(throws: Boom.self) { try outcome.queued[0].get() }
      #expect((try? outcome.queued[1].get()) != nil)
      #expect(try await Self.numbers(store) == [1, 2] + Array(100...20099))
    }
  }

  @Test("when the shared transaction ends under its writes, each of them fails and none is kept")
  func endedBatchFailsEveryWrite() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      struct Aborted: Error {}
      // What SQLite does after some I/O errors: the transaction is rolled back whole.
      let aborting: @Sendable (any SQLDatabase) async throws -> Void = { database in
        try await database.raw("ROLLBACK").run()
        throw Aborted()
      }
      let outcome = await Self.batch(store, first: Self.insert(0), queued: [Self.insert(1), aborting, Self.insert(3)])
      #expect(throws: Aborted.self) { try outcome.first.get() }
      #expect(throws: Aborted.self) { try outcome.queued[0].get() }
      #expect(throws: Aborted.self) { try outcome.queued[1].get() }
      // The write after it began a transaction of its own.
      #expect((try? outcome.queued[2].get()) != nil)
      #expect(try await Self.numbers(store) == [3])
    }
  }

  @Test("an in-memory store, whose reads wait for the writer's lock, commits each write alone")
  func inMemoryWritesAndReadsQueued() async throws {
    let store = try await SQLiteStore.open(path: ":memory:", logger: Logger(label: "test"))
    try await SchemaMigrator.migrate(store, Self.migrations)
    let held = await HeldWrite(store, first: Self.insert(0))
    let queuedWrite = Task { try await store.write(Self.insert(1)) }
    try await waitUntil("the write queues") { store.writesWaiting == 1 }
    let queuedRead = Task { try await Self.numbers(store) }
    try await waitUntil("the read queues") { store.writesWaiting == 2 }
    held.release()
    try await held.head.value
    try await queuedWrite.value
    #expect(try await queuedRead.value == [0, 1])
    #expect(try await Self.numbers(store) == [0, 1])
    try await store.close()
  }

  @Test("migrations apply once")
  func migrations() async throws {
    try await withStore { store, _ in
      let first = try await SchemaMigrator.migrate(store, Self.migrations)
      let second = try await SchemaMigrator.migrate(store, Self.migrations)
      #expect(first == ["t-1"])
      #expect(second == [])
    }
  }

  @Test("a write that throws is rolled back whole")
  func rollback() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      struct Boom: Error {}
      await #expect(throws: Boom.self) {
        try await store.write { database in
          try await database.raw("INSERT INTO t (n) VALUES (1)").run()
          try await database.raw("INSERT INTO t (n) VALUES (2)").run()
          throw Boom()
        }
      }
      #expect(try await Self.count(store) == 0)
    }
  }

  @Test("concurrent writes are serialized and all land; they survive reopening")
  func concurrentWrites() async throws {
    let path = TemporaryDatabase.path(named: "store-reopen")
    defer { TemporaryDatabase.remove(path) }
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    try await SchemaMigrator.migrate(store, Self.migrations)
    try await withThrowingTaskGroup(of: Void.self) { group in
      for n in 0..<50 {
        group.addTask {
          try await store.write { database in
            let current =
              try await database.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) ?? 0
            try await database.raw("INSERT INTO t (n) VALUES (\(bind: current + n))").run()
          }
        }
      }
      try await group.waitForAll()
    }
    try await store.close()
    let reopened = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    #expect(try await Self.count(reopened) == 50)
    try await reopened.close()
  }

  @Test("values of every SQLite type round-trip; a bad statement says SQLite's reason and the store goes on")
  func valuesAndErrors() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(
        store,
        [
          SchemaMigration(
            id: "v-1",
            statements: [
              "CREATE TABLE v (k TEXT PRIMARY KEY, i INTEGER, f REAL, t TEXT, b BLOB, n TEXT)"
            ])
        ])
      let bytes = Data([0, 1, 2, 255])
      try await store.write {
        try await $0.raw(
          "INSERT INTO v VALUES ('a', \(bind: Int64.max), \(bind: 2.5), \(bind: "Zoë 🦄"), \(bind: bytes), NULL)"
        ).run()
      }
      let row = try await store.read { try await $0.raw("SELECT * FROM v WHERE k = 'a'").first() }
      #expect(row?.allColumns == ["k", "i", "f", "t", "b", "n"])
      #expect(try row?.decode(column: "i", as: Int64.self) == Int64.max)
      #expect(try row?.decode(column: "f", as: Double.self) == 2.5)
      #expect(try row?.decode(column: "t", as: String.self) == "Zoë 🦄")
      #expect(try row?.decode(column: "b", as: Data.self) == bytes)
      #expect(try row?.decodeNil(column: "n") == true)
      #expect(try row?.decode(column: "n", as: String?.self) == nil)
      #expect(try row?.decode(column: "n", as: Int?.self) == nil)
      #expect(try row?.decode(column: "n", as: Int64?.self) == nil)
      #expect(try row?.decode(column: "i", as: Int.self) == Int.max)
      #expect(try row?.decode(column: "i", as: Int?.self) == Int.max)
      #expect(try row?.decode(column: "i", as: Int64?.self) == Int64.max)
      #expect(try row?.decode(column: "t", as: String?.self) == "Zoë 🦄")
      // Not the column's type: SQLiteKit's decoder decides, and refuses text as a number.
      #expect(throws: (any Error).self) { try row?.decode(column: "t", as: Int.self) }
      #expect(throws: (any Error).self) { try row?.decode(column: "n", as: String.self) }
      #expect(throws: (any Error).self) { try row?.decode(column: "nope", as: String.self) }
      // A duplicate key: SQLite's reason, nothing written, and the next write goes ahead.
      await #expect {
        try await store.write { try await $0.raw("INSERT INTO v (k) VALUES ('a')").run() }
      } throws: { "\($0)".contains("UNIQUE constraint failed: v.k") }
      await #expect {
        try await store.read { try await $0.raw("SELEC nonsense").run() }
      } throws: { "\($0)".contains("syntax error") }
      try await store.write { try await $0.raw("INSERT INTO v (k) VALUES ('b')").run() }
      let keys = try await store.read {
        try await $0.raw("SELECT k FROM v ORDER BY k").all().map { try $0.decode(column: "k", as: String.self) }
      }
      #expect(keys == ["a", "b"])
    }
  }
}
