package import SQLKit

/// A database that may send a write nobody reads the result of together with a later statement of
/// the same transaction (`PostgresStore`: one round trip for several statements).
package protocol WritesLaterDatabase: SQLDatabase {
  /// Queues `statement` to run no later than the transaction's commit, and before any statement
  /// that names a table it names.
  func writeLater(_ statement: SQLQueryString) async throws
}

extension SQLDatabase {
  /// Runs `statement` — an INSERT, UPDATE or DELETE without `RETURNING`, whose result the caller
  /// does not read — now, or on a store that sends statements to a server, with a later statement
  /// of this transaction (`WritesLaterDatabase`): before any statement that names one of its
  /// tables, and before the commit. Its failure fails the transaction either way, perhaps at that
  /// later statement or at the commit, so nothing the caller does in between may depend on it
  /// having succeeded.
  package func writeLater(_ statement: SQLQueryString) async throws {
    if let later = self as? any WritesLaterDatabase { return try await later.writeLater(statement) }
    try await raw(statement).run()
  }
}
