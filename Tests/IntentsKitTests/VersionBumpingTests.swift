import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import SQLKit
import SQLiteNIO
import Testing

/// The SQLite writer moves the table versions (`TableVersioning`) itself, its triggers off, while
/// the schema has no trigger of its own and no foreign key that changes rows; otherwise the
/// triggers run as before.
@Suite("Table versions moved by the writer itself (SQLite)")
struct VersionBumpingTests {
  /// Makes `tables` (one text column each) and versions them, as migrations and the store would.
  static func versioned(_ handle: SQLiteHandle, _ tables: [String]) throws {
    try handle.run(
      "CREATE TABLE \(TableVersioning.table) (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID", []
    ) { _ in }
    for table in tables {
      try handle.run("CREATE TABLE \(table) (value TEXT NOT NULL)", []) { _ in }
      for statement in TableVersioning.statements(versioning: table) { try handle.run(statement, []) { _ in } }
    }
  }

  /// `table`'s version as `handle` sees it.
  static func version(of table: String, on handle: SQLiteHandle) throws -> Int {
    var version = -1
    try handle.run("SELECT version FROM \(TableVersioning.table) WHERE name = ?1", [.text(table)]) { row in
      if case .integer(let value) = row.values.first { version = value }
    }
    return version
  }

  static func count(_ table: String, on handle: SQLiteHandle) throws -> Int {
    var count = -1
    try handle.run("SELECT count(*) FROM \(table)", []) { row in
      if case .integer(let value) = row.values.first { count = value }
    }
    return count
  }

  @Test(
    "each statement that changed rows moves the versions of the tables it wrote, once; one that changed none, nothing")
  func movedPerStatement() throws {
    try withTemporaryHandle(named: "bump-per-statement") { handle, _ in
      try Self.versioned(handle, ["notes", "pets"])
      #expect(!handle.bumpsVersions)
      try handle.chooseVersionBumping()
      #expect(handle.bumpsVersions)

      try handle.run("INSERT INTO notes (value) VALUES ('a')", []) { _ in }
      #expect(handle.changedRows == 1)
      try handle.run("INSERT INTO notes (value) VALUES ('b'), ('c')", []) { _ in }
      #expect(handle.changedRows == 2)
      #expect(try Self.version(of: "notes", on: handle) == 2)
      #expect(try Self.version(of: "pets", on: handle) == 0)

      try handle.run("UPDATE notes SET value = 'z' WHERE value = 'nothing'", []) { _ in }
      #expect(handle.changedRows == 0)
      try handle.run("DELETE FROM pets", []) { _ in }
      #expect(try Self.version(of: "notes", on: handle) == 2)
      #expect(try Self.version(of: "pets", on: handle) == 0)

      // A statement that reads one table and writes another moves only the one it wrote.
      try handle.run("INSERT INTO pets (value) SELECT value FROM notes", []) { _ in }
      #expect(handle.changedRows == 3)
      #expect(try Self.version(of: "notes", on: handle) == 2)
      #expect(try Self.version(of: "pets", on: handle) == 1)
    }
  }

  @Test(
    "in a transaction each table's version moves once, at commit, by the statements that wrote it; its own reads see them moved"
  )
  func movedAtCommit() throws {
    try withTemporaryHandle(named: "bump-at-commit") { handle, path in
      try Self.versioned(handle, ["notes", "pets"])
      try handle.chooseVersionBumping()
      let other = try SQLiteHandle(path: path)
      defer { other.close() }
      func view(_ table: String) throws -> Int64 {
        let versions = try handle.readView().versions
        return versions.values[try #require(versions.names.positions[table])]
      }

      try handle.begin("BEGIN IMMEDIATE")
      try handle.run("INSERT INTO notes (value) VALUES ('a')", []) { _ in }
      #expect(try view("notes") == 1)
      try handle.run("INSERT INTO notes (value) VALUES ('b'), ('c')", []) { _ in }
      try handle.run("UPDATE notes SET value = 'z' WHERE value = 'nothing'", []) { _ in }
      try handle.run("INSERT INTO pets (value) VALUES ('Glimmer')", []) { _ in }
      // Not in the versions table yet; as the transaction's own reads see it, moved.
      #expect(try Self.version(of: "notes", on: handle) == 0)
      #expect(try view("notes") == 2)
      #expect(try view("pets") == 1)
      try handle.commit()
      #expect(try Self.version(of: "notes", on: other) == 2)
      #expect(try Self.version(of: "pets", on: other) == 1)
      #expect(try view("notes") == 2)

      // A transaction rolled back moves nothing, and leaves nothing for the next.
      try handle.begin("BEGIN IMMEDIATE")
      try handle.run("INSERT INTO notes (value) VALUES ('d')", []) { _ in }
      try handle.run("ROLLBACK", []) { _ in }
      try handle.begin("BEGIN IMMEDIATE")
      try handle.run("INSERT INTO pets (value) VALUES ('Sparkle')", []) { _ in }
      try handle.commit()
      #expect(try Self.version(of: "notes", on: other) == 2)
      #expect(try Self.version(of: "pets", on: other) == 2)
    }
  }

  @Test("another connection on the file keeps its triggers: its writes move the versions too")
  func otherConnectionsKeepTriggers() throws {
    try withTemporaryHandle(named: "bump-other-connection") { handle, path in
      try Self.versioned(handle, ["notes"])
      try handle.chooseVersionBumping()
      let shell = try SQLiteHandle(path: path)
      defer { shell.close() }
      try shell.run("INSERT INTO notes (value) VALUES ('a'), ('b')", []) { _ in }
      #expect(try Self.version(of: "notes", on: handle) == 2)
    }
  }

  @Test("a schema with a trigger of its own, or a foreign key that changes rows, keeps the triggers on")
  func triggersKeptWhenNeeded() throws {
    try withTemporaryHandle(named: "bump-kept-triggers") { handle, _ in
      try Self.versioned(handle, ["notes", "audit"])
      try handle.chooseVersionBumping()
      #expect(handle.bumpsVersions)

      // A trigger made by a statement runs from the next statement on, and turns bumping off.
      try handle.run(
        "CREATE TRIGGER notes_audit AFTER INSERT ON notes BEGIN INSERT INTO audit (value) VALUES (new.value); END", []
      ) { _ in }
      #expect(!handle.bumpsVersions)
      try handle.run("INSERT INTO notes (value) VALUES ('a')", []) { _ in }
      #expect(try Self.count("audit", on: handle) == 1)
      #expect(try Self.version(of: "notes", on: handle) == 1)
      #expect(try Self.version(of: "audit", on: handle) == 1)

      // Decided again before a write transaction: still a trigger of the schema's own.
      try handle.checkVersionBumping()
      #expect(!handle.bumpsVersions)
      try handle.run("DROP TRIGGER notes_audit", []) { _ in }
      try handle.checkVersionBumping()
      #expect(handle.bumpsVersions)

      try handle.run(
        "CREATE TABLE owners (id TEXT PRIMARY KEY)", []
      ) { _ in }
      try handle.run(
        "CREATE TABLE cars (owner TEXT REFERENCES owners (id) ON DELETE CASCADE)", []
      ) { _ in }
      try handle.checkVersionBumping()
      #expect(!handle.bumpsVersions)
    }
  }

  @Test("through a store: a domain's own trigger still fires on its writes, and what was kept is read again")
  func storeWithDomainTrigger() async throws {
    let path = TemporaryDatabase.path(named: "bump-store")
    defer { TemporaryDatabase.remove(path) }
    let store = try await SQLiteStore.open(path: path, logger: Logger(label: "test"))
    let migrations = [
      SchemaMigration(
        id: "audit-1",
        statements: [
          "CREATE TABLE names (name TEXT NOT NULL)",
          "CREATE TABLE audit (name TEXT NOT NULL)",
          "CREATE TRIGGER names_audit AFTER INSERT ON names BEGIN INSERT INTO audit (name) VALUES (new.name); END",
        ])
    ]
    try await SchemaMigrator.migrate(store, migrations)
    let names: @Sendable (any SQLDatabase) async throws -> [String] = { database in
      try await database.cachedRead("test.names", userID: "") {
        try await database.raw("SELECT name FROM names ORDER BY name").all()
          .map { try $0.decode(column: "name", as: String.self) }
      }
    }
    #expect(try await store.read(names) == [])
    try await store.write { try await $0.raw("INSERT INTO names (name) VALUES ('Celestra')").run() }
    #expect(try await store.read(names) == ["Celestra"])
    let audited = try await store.read { database in
      try await database.raw("SELECT count(*) AS n FROM audit").first()?.decode(column: "n", as: Int.self)
    }
    #expect(audited == 1)
    try await store.close()
  }
}
