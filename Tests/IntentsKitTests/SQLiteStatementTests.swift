import Foundation
@testable import IntentsRuntime
import IntentsKitTesting
import NIOCore
import SQLiteKit
import SQLiteNIO
import Testing

/// How `SQLiteStore`'s connections run a statement: its bound values converted as SQLiteKit's
/// encoder converts them, and its column names read once and again after SQLite prepares it anew.
@Suite("SQLite statements")
struct SQLiteStatementTests {
  struct Badge: Codable, Equatable {
    let name: String
  }

  enum Mood: String, Codable {
    case sparkly
  }

  @Test("a bound value converted directly is what SQLiteDataEncoder makes of it")
  func directBinds() throws {
    let values: [any Encodable] = [
      "Celestra", "", "🦄 rainbow", 0, -1, Int.max, Int64.min, Int32(7), true, false, 0.5, -1e300,
      String?.none, String?.some("Glimmer"), Int?.none, Int?.some(3), Int64?.none, Int64?.some(-4),
      Int32?.none, Bool?.none, Bool?.some(true), Double?.none, Double?.some(2.25),
      SQLiteData.null, SQLiteData.text("raw"),
    ]
    let encoder = SQLiteDataEncoder()
    for value in values {
      let direct = try #require(SQLiteBindValue.direct(value), "\(value) is converted directly")
      #expect(direct == (try encoder.encode(value)), "\(value)")
    }
  }

  @Test("any other value goes through SQLiteDataEncoder")
  func encodedBinds() throws {
    let values: [any Encodable] = [
      Badge(name: "Sparkle"), Mood.sparkly, UInt8(9), Data([1, 2, 3]), Float(1.5), [1, 2],
    ]
    let encoder = SQLiteDataEncoder()
    for value in values {
      #expect(SQLiteBindValue.direct(value) == nil, "\(value)")
      var made: SQLiteDataEncoder?
      #expect(try SQLiteBindValue.data(value, encoder: &made) == (try encoder.encode(value)), "\(value)")
      #expect(made != nil)
    }
  }

  @Test("a statement's column names follow a schema change another connection makes")
  func columnsAfterSchemaChange() throws {
    let path = TemporaryDatabase.path(named: "statement-columns")
    defer { TemporaryDatabase.remove(path) }
    let first = try SQLiteHandle(path: path)
    defer { first.close() }
    try first.run("CREATE TABLE unicorns (name TEXT NOT NULL)", []) { _ in }
    try first.run("INSERT INTO unicorns (name) VALUES ('Celestra')", []) { _ in }
    func rows() throws -> [[String: SQLiteData]] {
      var rows: [[String: SQLiteData]] = []
      try first.run("SELECT * FROM unicorns", []) { row in
        rows.append(Dictionary(uniqueKeysWithValues: zip(row.columns.names, row.values)))
      }
      return rows
    }
    #expect(try rows() == [["name": .text("Celestra")]])
    #expect(try rows() == [["name": .text("Celestra")]])
    let second = try SQLiteHandle(path: path)
    try second.run("ALTER TABLE unicorns ADD COLUMN horn TEXT NOT NULL DEFAULT 'spiral'", []) { _ in }
    second.close()
    #expect(try rows() == [["name": .text("Celestra"), "horn": .text("spiral")]])
  }
}
