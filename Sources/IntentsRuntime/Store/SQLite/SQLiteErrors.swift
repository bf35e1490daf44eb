internal import VaporCSQLite

/// A read transaction's snapshot was taken at another state than the one its cached reads were
/// answered at (`DeferredSnapshot`): the store runs the transaction's body again.
struct SnapshotMovedError: Error, CustomStringConvertible {
  var description: String { "the database changed while the read was answered from the cache; the read runs again" }
}

/// A statement SQLite refused or failed, with SQLite's (extended) result code and message.
struct SQLiteStatementError: Error, CustomStringConvertible {
  let code: Int32
  let message: String
  /// Another connection (another process on the same file) holds the lock the statement needed.
  var isBusy: Bool { code & 0xff == SQLITE_BUSY }
  /// The statement names a table the database does not have.
  var isMissingTable: Bool { code & 0xff == SQLITE_ERROR && message.hasPrefix("no such table") }
  var description: String { "SQLite error \(code): \(message)" }
}
