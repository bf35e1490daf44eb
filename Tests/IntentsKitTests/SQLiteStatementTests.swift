import Foundation
@testable import IntentsRuntime
import IntentsKitTesting
import NIOCore
import Logging
import SQLKit
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
      Int32?.none, Int32?.some(-5), Bool?.none, Bool?.some(true), Bool?.some(false), Double?.none, Double?.some(2.25),
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
    try withTemporaryHandle(named: "statement-columns") { first, path in try columnsAfterSchemaChange(first, path) }
  }

  private func columnsAfterSchemaChange(_ first: SQLiteHandle, _ path: String) throws {
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

  @Test("a row's columns are found by name in the order they are asked for, in any other, and across rows")
  func columnsByName() throws {
    let columns = SQLiteResultRow.Columns(names: ["id", "name", "horn", "name", "sparkle_level_of_the_unicorn"])
    // In order, twice over: after the last column the next row's first.
    for _ in 0..<2 {
      #expect(columns.position(of: "id") == 0)
      #expect(columns.position(of: "name") == 1)
      #expect(columns.position(of: "horn") == 2)
      // The second "name" is never the answer: a name's first column is.
      #expect(columns.position(of: "name") == 1)
      #expect(columns.position(of: "sparkle_level_of_the_unicorn") == 4)
    }
    // Out of order, and a name no column has.
    #expect(columns.position(of: "horn") == 2)
    #expect(columns.position(of: "id") == 0)
    #expect(columns.position(of: "sparkle_level_of_the_unicorn") == 4)
    #expect(columns.position(of: "mane") == nil)
    #expect(columns.position(of: "id") == 0)
    let row = SQLiteResultRow(
      columns: columns, values: [.integer(7), .text("Celestra"), .text("spiral"), .text("Glimmer"), .null])
    #expect(try row.decode(column: "name", as: String.self) == "Celestra")
    #expect(try row.decode(column: "id", as: Int.self) == 7)
    #expect(try row.decode(column: "sparkle_level_of_the_unicorn", as: String?.self) == nil)
    #expect(row.contains(column: "horn"))
    #expect(!row.contains(column: "mane"))
    #expect(throws: SQLiteResultRow.MissingColumn.self) { try row.decode(column: "mane", as: String.self) }
  }

  @Test("a bound text is its string's bytes exactly: empty (not NULL), short, long, with a zero byte")
  func boundTexts() throws {
    try withTemporaryHandle(named: "bound-texts") { handle, _ in
      // Up to 15 bytes a string keeps its bytes inline, past that in storage of its own.
      let texts = [
        "", "a", "Celestra", "fifteen bytes!!", "sixteen bytes!!!", "🦄 rainbow", "a\0b",
        String(repeating: "🌈", count: 300),
      ]
      for text in texts {
        var read: [SQLiteData] = []
        try handle.run("SELECT ?1, typeof(?1), length(CAST(?1 AS BLOB))", [.text(text)]) { read = $0.values }
        #expect(read == [.text(text), .text("text"), .integer(text.utf8.count)], "\(text.debugDescription)")
      }
    }
  }

  @Test("the lanes' dialect says what SQLiteKit's says, with the bind placeholders made once")
  func laneDialect() {
    let lane = SQLiteLaneDialect()
    let sqlite = SQLiteDialect()
    func text(_ expression: (any SQLExpression)?, _ dialect: any SQLDialect) -> String? {
      guard let expression else { return nil }
      var serializer = SQLSerializer(database: DialectOnly(dialect: dialect))
      expression.serialize(to: &serializer)
      return serializer.sql
    }
    for position in [1, 2, 9, 10, 63, 64, 65, 300] {
      #expect(text(lane.bindPlaceholder(at: position), lane) == "?\(position)")
      #expect(text(lane.bindPlaceholder(at: position), lane) == text(sqlite.bindPlaceholder(at: position), sqlite))
    }
    #expect(lane.name == sqlite.name)
    let expressions: [(String, (any SQLDialect) -> (any SQLExpression)?)] = [
      ("identifierQuote", { $0.identifierQuote }), ("literalStringQuote", { $0.literalStringQuote }),
      ("autoIncrementClause", { $0.autoIncrementClause }), ("autoIncrementFunction", { $0.autoIncrementFunction }),
      ("true", { $0.literalBoolean(true) }), ("false", { $0.literalBoolean(false) }),
      ("literalDefault", { $0.literalDefault }), ("bigint", { $0.customDataType(for: .bigint) }),
      ("text", { $0.customDataType(for: .text) }),
      ("constraint", { $0.normalizeSQLConstraint(identifier: SQLIdentifier("horn")) }),
      ("sharedSelectLock", { $0.sharedSelectLockExpression }),
      ("exclusiveSelectLock", { $0.exclusiveSelectLockExpression }),
      ("subpath", { $0.nestedSubpathExpression(in: SQLIdentifier("mane"), for: ["colour", "shade"]) }),
    ]
    for (name, expression) in expressions {
      #expect(text(expression(lane), lane) == text(expression(sqlite), sqlite), "\(name)")
    }
    #expect(lane.supportsAutoIncrement == sqlite.supportsAutoIncrement)
    #expect(lane.supportsIfExists == sqlite.supportsIfExists)
    #expect(lane.supportsDropBehavior == sqlite.supportsDropBehavior)
    #expect(lane.supportsReturning == sqlite.supportsReturning)
    #expect(lane.enumSyntax == sqlite.enumSyntax)
    #expect(lane.triggerSyntax.create == sqlite.triggerSyntax.create)
    #expect(lane.triggerSyntax.drop == sqlite.triggerSyntax.drop)
    #expect(lane.alterTableSyntax.allowsBatch == sqlite.alterTableSyntax.allowsBatch)
    #expect(
      text(lane.alterTableSyntax.alterColumnDefinitionClause, lane)
        == text(sqlite.alterTableSyntax.alterColumnDefinitionClause, sqlite))
    #expect(
      text(lane.alterTableSyntax.alterColumnDefinitionTypeKeyword, lane)
        == text(sqlite.alterTableSyntax.alterColumnDefinitionTypeKeyword, sqlite))
    #expect(lane.upsertSyntax == sqlite.upsertSyntax)
    #expect(lane.unionFeatures == sqlite.unionFeatures)
    // A whole statement, past the placeholders made once.
    var query = SQLQueryString("INSERT INTO unicorns VALUES (")
    for value in 0..<70 { query.appendInterpolation(bind: value) }
    query.appendLiteral(")")
    #expect(text(query, lane) == text(query, sqlite))
  }

  /// A database that only serializes, in `dialect`.
  private struct DialectOnly: SQLDatabase {
    let dialect: any SQLDialect
    var logger: Logger { Logger(label: "dialect-only") }
    var eventLoop: any EventLoop { EmbeddedEventLoop() }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) -> EventLoopFuture<
      Void
    > {
      eventLoop.makeSucceededVoidFuture()
    }
  }

  @Test("a statement's text keys its prepared statement by a digest that every byte moves")
  func statementTextDigest() {
    // Lengths around the 8-byte words the digest takes, so that the tail counts too.
    for length in [1, 7, 8, 9, 15, 16, 17, 300] {
      let text = String(repeating: "a", count: length)
      let digest = StatementText.digest(of: text)
      #expect(StatementText.digest(of: String(text)) == digest)
      for position in 0..<length {
        var bytes = Array(text.utf8)
        bytes[position] = UInt8(ascii: "b")
        #expect(StatementText.digest(of: String(decoding: bytes, as: UTF8.self)) != digest, "\(length) at \(position)")
      }
      #expect(StatementText.digest(of: text + "\0") != digest, "a zero byte more")
    }
  }

  @Test("prepared statements are found by their text: many, past growth, and two texts with one digest apart")
  func preparedStatementsByText() {
    var statements = PreparedStatements<Int>()
    let texts = (0..<300).map { "SELECT name FROM unicorns WHERE id = ?1 -- \($0)" } + ["COMMIT", "", "ROLLBACK"]
    for (number, text) in texts.enumerated() {
      #expect(statements.find(text, digest: StatementText.digest(of: text)) == nil)
      statements.insert(number, for: text, digest: StatementText.digest(of: text))
    }
    #expect(statements.count == texts.count)
    for (number, text) in texts.enumerated() {
      #expect(statements.find(text, digest: StatementText.digest(of: text)) == number, "\(text)")
      #expect(statements.find(text + " ", digest: StatementText.digest(of: text)) == nil)
    }
    // A collision: the same digest for other texts, each found as itself.
    statements.insert(-1, for: "SELECT 1", digest: 42)
    statements.insert(-2, for: "SELECT 2", digest: 42)
    #expect(statements.find("SELECT 1", digest: 42) == -1)
    #expect(statements.find("SELECT 2", digest: 42) == -2)
    #expect(statements.find("SELECT 3", digest: 42) == nil)
    #expect(statements.all.sorted() == [-2, -1] + Array(0..<texts.count))
    statements.removeAll()
    #expect(statements.count == 0 && statements.all.isEmpty)
    #expect(statements.find("COMMIT", digest: StatementText.digest(of: "COMMIT")) == nil)
  }
}
