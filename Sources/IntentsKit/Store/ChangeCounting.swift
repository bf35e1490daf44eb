package import SQLKit

/// A database that counts the rows a statement changed. On SQLite a guarded UPDATE is checked
/// this way rather than by `RETURNING`, for which SQLite builds and drops a temporary table on
/// every run (~15,000 instructions, two a payment).
package protocol ChangeCountingDatabase: SQLDatabase {
  /// Runs `statement` (an INSERT, UPDATE or DELETE) and returns how many rows it changed itself
  /// (not counting what triggers changed).
  func changedRows(by statement: SQLQueryString) async throws -> Int
}

extension SQLDatabase {
  /// Runs `statement` — an UPDATE or DELETE without a `RETURNING` clause — and returns how many
  /// rows it changed: counted by the database where it can (`ChangeCountingDatabase`), otherwise
  /// the rows of the statement with `RETURNING 1` appended (PostgreSQL through SQLKit, which
  /// reports no count).
  package func changedRows(by statement: SQLQueryString) async throws -> Int {
    if let counting = self as? any ChangeCountingDatabase { return try await counting.changedRows(by: statement) }
    return try await raw(statement + " RETURNING 1").all().count
  }
}
