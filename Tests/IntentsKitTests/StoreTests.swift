import IntentMeshProtos
import SwiftProtobuf
import MessagingProtos
import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
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
      let sync = try await store.write {
        try await $0.raw("PRAGMA synchronous").first()?.decode(column: "synchronous", as: Int.self)
      }
      #expect(mode == "wal")
      #expect(sync == 1)
      let durability = try #require(store.durability)
      #expect((durability.commits, durability.durableCommits, durability.syncs) == (1, 1, 1))
    }
  }

  @Test("a write returns only once a sync covers its commit; concurrent writes share syncs")
  func groupCommit() async throws {
    try await withStore { store, _ in
      try await SchemaMigrator.migrate(store, Self.migrations)
      let before = try #require(store.durability)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for n in 0..<200 {
          group.addTask {
            // Inside the transaction, the commits before it are counted: it will be the next.
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
      #expect(after.commits == before.commits + 200)
      #expect(after.durableCommits == after.commits)
      #expect(after.syncs > before.syncs)
      #expect(after.syncs - before.syncs <= 200)
      #expect(try await Self.count(store) == 200)
    }
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
