internal import SQLKit

/// Statements sent as one (`PostgresTransactionDatabase.writeLater`): writes queued for later, each
/// a data-modifying `WITH` query of the statement that goes with them — `WITH intentmesh_later_0 AS
/// (INSERT …), … UPDATE …` — or, when none goes with them, of `SELECT 1`. PostgreSQL runs every
/// part to completion on one snapshot and checks foreign keys once the whole statement has run, so
/// a row inserted by one part satisfies another part's key; no part sees another's rows, which is
/// why a statement naming a table a queued write names is not sent with it
/// (`PostgresTransactionScope`).
struct StatementsTogether: SQLExpression {
  let later: [SQLQueryString]
  /// The statement they go with; nil: `SELECT 1`.
  let statement: (any SQLExpression)?
  /// Whether `statement` has a `WITH` clause of its own, which the queued writes join.
  let statementHasWith: Bool

  func serialize(to serializer: inout SQLSerializer) {
    serializer.write("WITH ")
    for (index, write) in later.enumerated() {
      if index > 0 { serializer.write(", ") }
      serializer.write("intentmesh_later_\(index) AS (")
      write.serialize(to: &serializer)
      serializer.write(")")
    }
    guard let statement else { return serializer.write(" SELECT 1") }
    if statementHasWith {
      // The statement's own `WITH` becomes a comma: its queries follow the queued writes'. Written
      // in place, so its placeholders are numbered after the queued writes' values.
      serializer.write(", ")
      let before = serializer.sql
      statement.serialize(to: &serializer)
      let own = serializer.sql.dropFirst(before.count).drop { $0.isWhitespace }.dropFirst(4)
      serializer.sql = before + own
    } else {
      serializer.write(" ")
      statement.serialize(to: &serializer)
    }
  }

  /// Whether `text` begins with a plain `WITH` (not `WITH RECURSIVE`, which cannot follow others).
  static func beginsWithWith(_ text: String) -> Bool {
    firstWords(text).first == "with" && firstWords(text).dropFirst().first != "recursive"
  }

  /// Whether `text` is a statement the queued writes can join: a query or a write, not a
  /// transaction's or the schema's command.
  static func canJoin(_ text: String) -> Bool {
    guard let first = firstWords(text).first else { return false }
    return ["select", "insert", "update", "delete"].contains(first) || beginsWithWith(text)
  }

  private static func firstWords(_ text: String) -> [Substring] {
    text.prefix(40).lowercased().split(whereSeparator: { $0.isWhitespace || $0 == "(" }).prefix(2).map { $0 }
  }
}
