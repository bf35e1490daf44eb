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
        "CREATE TABLE pets (user_id TEXT NOT NULL, name TEXT NOT NULL)",
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

  static func insertPet(_ name: String, in database: any SQLDatabase) async throws {
    try await database.raw("INSERT INTO pets (user_id, name) VALUES ('diana', \(bind: name))").run()
  }

  /// Diana's names and pets, kept under "test.household": the names through `names` (kept too).
  static func household(in database: any SQLDatabase, loads: Loads) async throws -> [String] {
    try await database.cachedRead("test.household", userID: "diana") {
      loads.add()
      let pets = try await database.raw("SELECT name FROM pets WHERE user_id = 'diana' ORDER BY name").all()
        .map { try $0.decode(column: "name", as: String.self) }
      return try await names(of: "diana", in: database, loads: Loads()) + pets
    }
  }

  static func open(_ name: String) async throws -> TestStore.Opened {
    let opened = try await TestStore.open(named: name)
    try await SchemaMigrator.migrate(opened.store, migrations)
    // A PostgreSQL store keeps values once its listener hears the other replicas.
    if let shared = opened.store as? PostgresStore {
      try await waitUntil("the read cache is live") { shared.readCacheIsLive }
    }
    return opened
  }

  /// Runs `body` on a store `open` made, and disposes of the store afterwards, whether `body` threw or not.
  static func withOpened(_ name: String, _ body: (TestStore.Opened) async throws -> Void) async throws {
    let opened = try await open(name)
    do {
      try await body(opened)
    } catch {
      try? await opened.dispose()
      throw error
    }
    try await opened.dispose()
  }

  /// Whether every transaction reuses kept values: SQLite's do; PostgreSQL's reads do, its writes
  /// that run alone (`.serialized`, as these are) never.
  static var caches: Bool { TestStore.postgresURL == nil }
  static var postgres: Bool { TestStore.postgresURL != nil }

  @Test("an unchanged store answers from the cache; every reader connection loads once at most")
  func reused() async throws {
    try await Self.withOpened("cache-reuse") { opened in
      let loads = Loads()
      for _ in 0..<20 {
        let names = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
        #expect(names == ["Celestra"])
      }
      // SQLiteStore has four reader connections, each with its own cache; PostgresStore one cache,
      // started again when its listener is taken as lost (a barrier late on a loaded machine).
      #expect(loads.value <= 4)
    }
  }

  @Test("a value kept under a name is not answered as another type; a kept nil is answered as nil")
  func keptType() async throws {
    try await Self.withOpened("cache-kept-type") { opened in
      let loads = Loads()
      // In write transactions: one connection, so both reads meet the same cache.
      let count: Int = try await opened.store.write { database in
        try await database.cachedRead("test.shared", userID: "diana") {
          loads.add()
          return 1
        }
      }
      let text: String = try await opened.store.write { database in
        try await database.cachedRead("test.shared", userID: "diana") {
          loads.add()
          return "one"
        }
      }
      #expect(count == 1 && text == "one")
      let missing: String? = try await opened.store.write { database in
        try await database.cachedRead("test.missing", userID: "diana") {
          loads.add()
          return nil
        }
      }
      let again: String? = try await opened.store.write { database in
        try await database.cachedRead("test.missing", userID: "diana") {
          loads.add()
          return "loaded"
        }
      }
      #expect(missing == nil)
      #expect(again == (Self.caches ? nil : "loaded"))
      #expect(loads.value == (Self.caches ? 3 : 4))
    }
  }

  @Test("a committed write of this process is seen by the next read")
  func ownWrite() async throws {
    try await Self.withOpened("cache-own-write") { opened in
      let loads = Loads()
      for name in ["Glimmer", "Sparkle", "Zephyr"] {
        for _ in 0..<4 { _ = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) } }
        try await opened.store.write { try await Self.insert(name, in: $0) }
        let names = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
        #expect(names.contains(name))
      }
    }
  }

  @Test("a write by another store on the same file (another process) is seen by the next read")
  func otherConnectionWrite() async throws {
    try await Self.withOpened("cache-other-write") { opened in
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
    }
  }

  @Test("a write to a table the value was not read from keeps it; one to a table it was read from drops it")
  func tableScoped() async throws {
    try await Self.withOpened("cache-table-scoped") { opened in
      let loads = Loads()
      // In write transactions: one connection (the writer), so every load is counted against one cache.
      _ = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
      for pet in ["Glimmer", "Sparkle"] {
        try await opened.store.write { try await Self.insertPet(pet, in: $0) }
        let names = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
        #expect(names == ["Celestra"])
      }
      #expect(loads.value == (Self.caches ? 1 : 3))
      try await opened.store.write { try await Self.insert("Zephyr", in: $0) }
      let names = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(names == ["Celestra", "Zephyr"])
      #expect(loads.value == (Self.caches ? 2 : 4))
    }
  }

  @Test("a value built on another kept value depends on that value's tables too, reused or loaded")
  func nested() async throws {
    try await Self.withOpened("cache-nested") { opened in
      let loads = Loads()
      // The inner read is kept first, so the outer one finds it kept and reads no names itself.
      _ = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: Loads()) }
      let before = try await opened.store.write { try await Self.household(in: $0, loads: loads) }
      #expect(before == ["Celestra"])
      try await opened.store.write { try await Self.insert("Zephyr", in: $0) }
      let after = try await opened.store.write { try await Self.household(in: $0, loads: loads) }
      #expect(after == ["Celestra", "Zephyr"])
      try await opened.store.write { try await Self.insertPet("Glimmer", in: $0) }
      let withPet = try await opened.store.write { try await Self.household(in: $0, loads: loads) }
      #expect(withPet == ["Celestra", "Zephyr", "Glimmer"])
      _ = try await opened.store.write { try await Self.household(in: $0, loads: loads) }
      #expect(loads.value == (Self.caches ? 3 : 4))
    }
  }

  @Test("a value read from a table made outside the migrations is dropped by any write")
  func unversionedTable() async throws {
    try await Self.withOpened("cache-unversioned") { opened in
      let loads = Loads()
      try await opened.store.write { database in
        try await database.raw("CREATE TABLE scratch (name TEXT NOT NULL)").run()
        try await database.raw("INSERT INTO scratch (name) VALUES ('Moonbeam')").run()
      }
      @Sendable func scratch(_ database: any SQLDatabase) async throws -> [String] {
        try await database.cachedRead("test.scratch", userID: "") {
          loads.add()
          return try await database.raw("SELECT name FROM scratch ORDER BY name").all()
            .map { try $0.decode(column: "name", as: String.self) }
        }
      }
      #expect(try await opened.store.write { try await scratch($0) } == ["Moonbeam"])
      #expect(try await opened.store.write { try await scratch($0) } == ["Moonbeam"])
      #expect(loads.value == (Self.caches ? 1 : 2))
      try await opened.store.write { try await Self.insertPet("Glimmer", in: $0) }
      #expect(try await opened.store.write { try await scratch($0) } == ["Moonbeam"])
      #expect(loads.value == (Self.caches ? 2 : 3))
      try await opened.store.write { try await $0.raw("INSERT INTO scratch (name) VALUES ('Nimbus')").run() }
      #expect(try await opened.store.write { try await scratch($0) } == ["Moonbeam", "Nimbus"])
    }
  }

  @Test("a write by a plain SQLite connection on the file (not a store) is seen by the next read")
  func plainConnectionWrite() async throws {
    guard Self.caches else { return }
    try await Self.withOpened("cache-plain-write") { opened in
      let loads = Loads()
      for _ in 0..<4 { _ = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) } }
      let shell = try SQLiteHandle(path: opened.location)
      try shell.run("INSERT INTO names (user_id, name) VALUES ('diana', 'Moonbeam')", []) { _ in }
      shell.close()
      let inWrite = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(inWrite == ["Celestra", "Moonbeam"])
      let read = try await opened.store.read { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(read == ["Celestra", "Moonbeam"])
    }
  }

  @Test("a change of the schema by another connection (no row written, no trigger fired) drops what was kept")
  func schemaChange() async throws {
    guard Self.caches else { return }
    try await Self.withOpened("cache-schema-change") { opened in
      let loads = Loads()
      for _ in 0..<2 { _ = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) } }
      #expect(loads.value == 1)
      let shell = try SQLiteHandle(path: opened.location)
      try shell.run("ALTER TABLE names ADD COLUMN nickname TEXT", []) { _ in }
      shell.close()
      _ = try await opened.store.write { try await Self.names(of: "diana", in: $0, loads: loads) }
      #expect(loads.value == 2)
    }
  }

  @Test("a table's name is quoted in its versioning statements, whatever it holds")
  func quotedNames() {
    #expect(TableVersioning.quoted("it's", by: "'") == "'it''s'")
    #expect(TableVersioning.quoted("say \"hi\"", by: "\"") == "\"say \"\"hi\"\"\"")
    let statements = TableVersioning.statements(versioning: "o'brien")
    #expect(statements.count == 4)
    #expect(statements[0] == "INSERT OR IGNORE INTO intentmesh_table_versions (name, version) VALUES ('o''brien', 0)")
    #expect(statements[1].contains(#"AFTER INSERT ON "o'brien" BEGIN UPDATE"#))
    #expect(statements[1].contains("WHERE name = 'o''brien'"))
  }

  @Test("every migrated table is versioned, once, however often the store is migrated")
  func versionedTables() async throws {
    guard Self.caches else { return }
    try await Self.withOpened("cache-versioned") { opened in
      try await SchemaMigrator.migrate(opened.store, Self.migrations)
      let (tables, triggers) = try await opened.store.read { database in
        (
          try await database.raw("SELECT name FROM intentmesh_table_versions ORDER BY name").all()
            .map { try $0.decode(column: "name", as: String.self) },
          try await database.raw("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger'").first()?
            .decode(column: "n", as: Int.self)
        )
      }
      #expect(tables == ["intentmesh_schema_migrations", "names", "pets"])
      #expect(triggers == 9)
      let before = try await opened.store.read { database in
        try await database.raw("SELECT version FROM intentmesh_table_versions WHERE name = 'pets'").first()?
          .decode(column: "version", as: Int.self)
      }
      try await opened.store.write { database in
        try await Self.insertPet("Glimmer", in: database)
        try await database.raw("UPDATE pets SET name = 'Sparkle'").run()
        try await database.raw("DELETE FROM pets").run()
      }
      let after = try await opened.store.read { database in
        try await database.raw("SELECT version FROM intentmesh_table_versions WHERE name = 'pets'").first()?
          .decode(column: "version", as: Int.self)
      }
      #expect(after == before.map { $0 + 3 })
      // A table missing one of its triggers (dropped by hand) gets it back at the next start; the
      // others, complete, are left as they are.
      try await opened.store.write { try await $0.raw("DROP TRIGGER intentmesh_version_pets_update").run() }
      try await SchemaMigrator.migrate(opened.store, Self.migrations)
      let restored = try await opened.store.read { database in
        try await database.raw(
          "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'pets' ORDER BY name"
        ).all().map { try $0.decode(column: "name", as: String.self) }
      }
      #expect(restored == ["delete", "insert", "update"].map { "intentmesh_version_pets_\($0)" })
    }
  }

  @Test("a transaction's own write is seen by its later reads; a rolled-back one leaves nothing kept")
  func writesInTransaction() async throws {
    try await Self.withOpened("cache-in-transaction") { opened in
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
    }
  }

  @Test("values are kept per user and per read")
  func keyedByUserAndRead() async throws {
    try await Self.withOpened("cache-keys") { opened in
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
      #expect(keptNil == nil)
    }
  }

  @Test("the cache holds a bounded number of values")
  func bounded() {
    let cache = ReadCache()
    let view = ReadCache.View(
      stamp: ReadCache.Stamp(dataVersion: 1, changes: 0),
      versions: TableVersions(names: TableVersions.Names(["", "test"]), values: [7, 1]))
    for user in 0..<(ReadCache.capacity + 10) {
      cache.keep(user, for: ReadCacheKey("test", userID: "\(user)"), readFrom: ["test"], in: view)
    }
    #expect(cache.count <= ReadCache.capacity)
    #expect(cache.kept(ReadCacheKey("test", userID: "\(ReadCache.capacity + 9)"), in: view) != nil)
    #expect(cache.kept(ReadCacheKey("test", userID: "0"), in: view) == nil)
  }

  @Test(
    "a kept value holds while its tables' and the schema's versions do; one read from an unversioned table, while the stamp does"
  )
  func validity() {
    let cache = ReadCache()
    let tables = TableVersions.Names(["", "names", "pets"])
    func view(_ dataVersion: Int64, _ values: [Int64], names: TableVersions.Names = tables) -> ReadCache.View {
      ReadCache.View(
        stamp: ReadCache.Stamp(dataVersion: dataVersion, changes: 0),
        versions: TableVersions(names: names, values: values))
    }
    let first = view(1, [7, 1, 1])
    let names = ReadCacheKey("names", userID: "diana")
    let scratch = ReadCacheKey("scratch", userID: "diana")
    cache.keep("Celestra", for: names, readFrom: ["names"], in: first)
    cache.keep("Moonbeam", for: scratch, readFrom: ["names", "scratch"], in: first)
    // Another table moved, and the stamp with it.
    let petsMoved = view(2, [7, 1, 2])
    #expect(cache.kept(names, in: petsMoved)?.value as? String == "Celestra")
    #expect(cache.kept(names, in: petsMoved)?.tables == ["names"])
    #expect(cache.kept(scratch, in: petsMoved) == nil)
    #expect(cache.kept(scratch, in: first)?.value as? String == "Moonbeam")
    #expect(cache.kept(names, in: view(3, [7, 2, 2])) == nil)
    // The schema moved (a table altered, dropped or made anew: no trigger fires).
    #expect(cache.kept(names, in: view(4, [8, 1, 2])) == nil)
    // Tables versioned or dropped since: other names, even where the versions are the same.
    let toys = TableVersions.Names(["", "names", "pets", "toys"])
    #expect(cache.kept(names, in: view(5, [7, 1, 1, 0], names: toys)) == nil)
    #expect(cache.kept(names, in: view(6, [7, 1, 1], names: TableVersions.Names(["", "names", "pets"]))) == nil)
    // A table that lost its version (the versions table gone) is no longer trusted.
    #expect(cache.kept(names, in: view(7, [7], names: TableVersions.Names([""]))) == nil)
    // Versions remembered for a stamp are forgotten on clear (a rollback takes its versions back).
    cache.remember(first.versions, at: first.stamp)
    #expect(cache.versions(at: first.stamp)?.values == [7, 1, 1])
    #expect(cache.lastNames === tables)
    #expect(cache.versions(at: ReadCache.Stamp(dataVersion: 1, changes: 1)) == nil)
    cache.clear()
    #expect(cache.versions(at: first.stamp) == nil)
    #expect(cache.lastNames == nil)
    #expect(cache.count == 0)
  }

  @Test("the versions a connection reads share their names with the last read that found the same tables")
  func versionsShareNames() throws {
    try withTemporaryHandle(named: "versions-names") { handle, _ in try versionsShareNames(handle) }
  }

  private func versionsShareNames(_ handle: SQLiteHandle) throws {
    func run(_ sql: String) throws { try handle.run(sql, []) { _ in } }
    func read() throws -> TableVersions { try handle.readView().versions }
    func versions(_ read: TableVersions) -> [String: Int64] {
      Dictionary(uniqueKeysWithValues: zip(read.names.names, read.values))
    }
    // No versions table: the schema's version alone.
    let unversioned = try read()
    #expect(unversioned.names.names == [TableVersioning.schema])
    try run(
      "CREATE TABLE \(TableVersioning.table) (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID")
    try run("INSERT INTO \(TableVersioning.table) (name, version) VALUES ('pets', 1), ('names', 2)")
    let first = try read()
    #expect(first.names.names == ["", "names", "pets"])
    #expect(first.names !== unversioned.names)
    #expect(versions(first)["names"] == 2 && versions(first)["pets"] == 1)
    // The schema's version, first: moved by the CREATE TABLE.
    #expect(first.values[0] > unversioned.values[0])
    // A version moves: the same names, the new version.
    try run("UPDATE \(TableVersioning.table) SET version = 5 WHERE name = 'pets'")
    let moved = try read()
    #expect(moved.names === first.names)
    #expect(versions(moved) == versions(first).merging(["pets": 5]) { $1 })
    // A table versioned since, first in order, last, and one dropped: names made anew, in order.
    try run("INSERT INTO \(TableVersioning.table) (name, version) VALUES ('acorns', 0)")
    #expect(try read().names.names == ["", "acorns", "names", "pets"])
    try run("INSERT INTO \(TableVersioning.table) (name, version) VALUES ('toys', 3)")
    let grown = try read()
    #expect(grown.names.names == ["", "acorns", "names", "pets", "toys"])
    #expect(versions(grown)["toys"] == 3 && versions(grown)["pets"] == 5)
    try run("DELETE FROM \(TableVersioning.table) WHERE name IN ('acorns', 'toys')")
    let shrunk = try read()
    #expect(shrunk.names.names == ["", "names", "pets"])
    #expect(shrunk.values.count == 3)
    #expect(try read().names === shrunk.names)
  }
}
