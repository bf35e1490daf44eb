@testable import IntentsRuntime
import IntentsKitTesting

/// Runs `body` with a connection to a new database file (and the file's path, for more
/// connections to it); the connection is closed and the file removed afterwards.
func withTemporaryHandle(named name: String, _ body: (SQLiteHandle, String) throws -> Void) throws {
  let path = TemporaryDatabase.path(named: name)
  defer { TemporaryDatabase.remove(path) }
  let handle = try SQLiteHandle(path: path)
  defer { handle.close() }
  try body(handle, path)
}
