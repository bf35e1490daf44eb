import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import SQLKit
import Synchronization
import Testing

/// Reads a handler keeps across requests (`cachedRead`): reused while the store is unchanged, read
/// again after any write — this process's, another connection's, or one earlier in the same
/// transaction — and never what a rolled-back transaction showed.
@Suite("Read cache (SQLite, or PostgreSQL when INTENTMESH_TEST_POSTGRES_URL is set)")
struct ReadCacheTests {
  static let migrations = [
    SchemaMigration(
      id: "names-1",
      statements: [
        "CREATE TABLE names (user_id TEXT NOT NULL, name TEXT NOT NULL)",
        "INSERT INTO names (user_id, name) VALUES ('diana', 'Celestra')",
      ])
  ]

  /// Counts the loads `cachedRead` runs.
  final class Loads: Sendable {
    private let count = Atomic(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add() { count.add(1, ordering: .relaxed) }
  }

  /// Diana's names, kept under "test.names".
  static func names(of userID: String, in database: any SQLDatabase, loads: Loads) async throws -> [String] {
    try await database.cachedRead("test.names", userID: userID) {
      loads.add()
      return try await database.raw("SELECT name FROM names WHERE user_id = \(bind: userID) ORDER BY name").all()
        .map { try $0.decode(column: "name", as: String.self) }
    }
  }

  static func insert(_ name: String, in database: any SQLDatabase) async throws {
    try await database.raw("INSERT INTO names (user_id, name) VALUES ('diana', \(bind: name))").run()
  }

  static func open(_ name: String) async throws -> TestStore.Opened {
    let opened = try await TestStore.open(named: name)
    try await SchemaMigrator.migrate(opened.store, migrations)
    return opened
  }

  static var caches: Bool { TestStore.postgresURL == nil }

  @Test("an unchanged store answers from the cache; every reader connection loads once at most")
  func reused() async throws {
    let opened = try await Self.open("cache-reuse")
    let loads = Loads()
    for _ in 0..<20 {
      let names = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(names == ["Celestra"])
    }
    // SQLiteStore has four reader connections, each with its own cache.
    #expect(Self.caches ? loads.value <= 4 : loads.value == 20)
    try await opened.dispose()
  }

  @Test("a committed write of this process is seen by the next read")
  func ownWrite() async throws {
    let opened = try await Self.open("cache-own-write")
    let loads = Loads()
    for name in ["Glimmer", "Sparkle", "Zephyr"] {
      for _ in 0..<4 { _ = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) } }
      try await opened.store.write { try await Self.insert(name, in: $0) }
      let names = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(names.contains(name))
    }
    try await opened.dispose()
  }

  @Test("a write by another store on the same file (another process) is seen by the next read")
  func otherConnectionWrite() async throws {
    let opened = try await Self.open("cache-other-write")
    let location = try StoreLocation(parsing: opened.location)
    let second = try await StoreOpener.open(location, defaultSchema: "unused", logger: TestStore.quietLogger)
    let loads = Loads()
    for _ in 0..<8 { _ = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) } }
    try await second.write { try await Self.insert("Moonbeam", in: $0) }
    for _ in 0..<8 {
      let names = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(names == ["Celestra", "Moonbeam"])
    }
    // The writer's cache too: a write transaction reads what the other store wrote.
    let inWrite = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
    #expect(inWrite == ["Celestra", "Moonbeam"])
    try await second.close()
    try await opened.dispose()
  }

  @Test("a transaction's own write is seen by its later reads; a rolled-back one leaves nothing kept")
  func writesInTransaction() async throws {
    let opened = try await Self.open("cache-in-transaction")
    let loads = Loads()
    struct Abandoned: Error {}
    let before = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
    #expect(before == ["Celestra"])
    await #expect(throws: Abandoned.self) {
      try await opened.store.write { database in
        _ = try await Self.names(of: "diana", in: database, loads: loads)
        try await Self.insert("Ghost", in: database)
        let seen = try await Self.names(of: "diana", in: database, loads: loads)
        #expect(seen == ["Celestra", "Ghost"])
        throw Abandoned()
      }
    }
    let after = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
    #expect(after == ["Celestra"])
    let read = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
    #expect(read == ["Celestra"])
    try await opened.dispose()
  }

  @Test("values are kept per user and per read")
  func keyedByUserAndRead() async throws {
    let opened = try await Self.open("cache-keys")
    let loads = Loads()
    try await opened.store.write { database in
      try await database.raw("INSERT INTO names (user_id, name) VALUES ('ben', 'Rainbow')").run()
    }
    let (diana, ben, other, optional) = try await opened.store.read { database in
      (
        try await Self.names(of: "diana", in: database, loads: loads),
        try await Self.names(of: "ben", in: database, loads: loads),
        try await database.cachedRead("test.count", userID: "diana") { 42 },
        // An optional value is loaded, not taken for a kept nil.
        try await database.cachedRead("test.optional", userID: "diana") { String?.some("loaded") }
      )
    }
    #expect(diana == ["Celestra"])
    #expect(ben == ["Rainbow"])
    #expect(other == 42)
    #expect(optional == "loaded")
    let keptNil = try await opened.store.read { database in
      _ = try await database.cachedRead("test.absent", userID: "diana") { String?.none }
      return try await database.cachedRead("test.absent", userID: "diana") { String?.some("loaded again") }
    }
    #expect(keptNil == (Self.caches ? nil : "loaded again"))
    try await opened.dispose()
  }

  @Test("the cache holds a bounded number of values")
  func bounded() {
    let cache = ReadCache()
    let stamp = ReadCache.Stamp(dataVersion: 1, changes: 0)
    for user in 0..<(ReadCache.capacity + 10) {
      cache.keep(user, for: ReadCacheKey("test", userID: "\(user)"), at: stamp)
    }
    #expect(cache.count <= ReadCache.capacity)
    #expect(cache.value(ReadCacheKey("test", userID: "\(ReadCache.capacity + 9)"), as: Int.self, at: stamp) != nil)
    #expect(cache.value(ReadCacheKey("test", userID: "0"), as: Int.self, at: stamp) == nil)
    let moved = ReadCache.Stamp(dataVersion: 2, changes: 0)
    #expect(cache.value(ReadCacheKey("test", userID: "\(ReadCache.capacity + 9)"), as: Int.self, at: moved) == nil)
  }
}
