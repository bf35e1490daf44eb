import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import SQLKit
import Testing

/// Writes whose result nobody reads (`writeLater`): on PostgreSQL sent with a later statement of the
/// transaction; on SQLite run at once. Either way they take effect with the transaction, before any
/// statement that reads their tables, and not at all when it rolls back.
@Suite("Writes sent later (SQLite, or PostgreSQL when INTENTMESH_TEST_POSTGRES_URL is set)")
struct WritesLaterTests {
  static let migrations = [
    SchemaMigration(
      id: "later-1",
      statements: [
        "CREATE TABLE owners (owner_id TEXT PRIMARY KEY, name TEXT NOT NULL)",
        "CREATE TABLE pets (pet_id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES owners (owner_id), name TEXT NOT NULL)",
        "CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
        "INSERT INTO counters (name, value) VALUES ('pets', 0)",
      ])
  ]

  static func withStore(_ name: String, _ body: (any IntentStore) async throws -> Void) async throws {
    try await TestStore.with(named: name) { store in
      try await SchemaMigrator.migrate(store, migrations)
      try await body(store)
    }
  }

  static func count(_ table: String, in store: any IntentStore) async throws -> Int {
    try await store.read { database in
      try await database.raw("SELECT count(*) AS n FROM \(unsafeRaw: table)").first()?.decode(column: "n", as: Int.self)
        ?? -1
    }
  }

  @Test("queued writes go with a statement on other tables, foreign keys holding across them; values keep their order")
  func together() async throws {
    try await Self.withStore("later-together") { store in
      for concurrency in [WriteConcurrency.serialized, .concurrent] {
        let id = "\(concurrency)"
        let changed = try await store.write(concurrency) { database in
          try await database.writeLater("INSERT INTO owners (owner_id, name) VALUES (\(bind: id), \(bind: "Diana"))")
          try await database.writeLater(
            "INSERT INTO pets (pet_id, owner_id, name) VALUES (\(bind: id + "-1"), \(bind: id), \(bind: "Glimmer")), (\(bind: id + "-2"), \(bind: id), \(bind: "Sparkle"))"
          )
          return try await database.changedRows(
            by:
              "WITH one AS (SELECT 2 AS n) UPDATE counters SET value = value + (SELECT n FROM one) WHERE name = \(bind: "pets")"
          )
        }
        #expect(changed == 1)
      }
      let names = try await store.read { database in
        try await database.raw("SELECT name FROM pets ORDER BY pet_id").all().map {
          try $0.decode(column: "name", as: String.self)
        }
      }
      #expect(names == ["Glimmer", "Sparkle", "Glimmer", "Sparkle"])
      let value = try await store.read { database in
        try await database.raw("SELECT value FROM counters WHERE name = 'pets'").first()?.decode(
          column: "value", as: Int.self)
      }
      #expect(value == 4)
    }
  }

  @Test("a statement that reads a queued write's table sees it")
  func readsItsOwn() async throws {
    try await Self.withStore("later-reads") { store in
      let seen = try await store.write { database in
        try await database.writeLater("INSERT INTO owners (owner_id, name) VALUES ('o', 'Diana')")
        return try await database.raw("SELECT name FROM owners").all().map {
          try $0.decode(column: "name", as: String.self)
        }
      }
      #expect(seen == ["Diana"])
    }
  }

  @Test("a queued write that fails fails its transaction, whole; a rolled-back one is never sent; the store goes on")
  func failures() async throws {
    try await Self.withStore("later-failures") { store in
      await #expect(throws: (any Error).self) {
        try await store.write { database in
          try await database.raw("UPDATE counters SET value = 9").run()
          // No such owner: the foreign key fails, at the latest when the transaction commits.
          try await database.writeLater("INSERT INTO pets (pet_id, owner_id, name) VALUES ('p', 'nobody', 'Ghost')")
        }
      }
      struct Abandoned: Error {}
      await #expect(throws: Abandoned.self) {
        try await store.write { database in
          try await database.writeLater("INSERT INTO owners (owner_id, name) VALUES ('o', 'Diana')")
          throw Abandoned()
        }
      }
      #expect(try await Self.count("pets", in: store) == 0)
      #expect(try await Self.count("owners", in: store) == 0)
      let value = try await store.read { database in
        try await database.raw("SELECT value FROM counters WHERE name = 'pets'").first()?.decode(
          column: "value", as: Int.self)
      }
      #expect(value == 0)
      try await store.write { try await $0.writeLater("INSERT INTO owners (owner_id, name) VALUES ('o', 'Diana')") }
      #expect(try await Self.count("owners", in: store) == 1)
    }
  }
}
