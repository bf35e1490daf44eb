import Foundation

/// A SQLite file under the temporary directory for a service under test; `remove()` deletes it
/// with its WAL and shared-memory files.
struct TemporaryDatabaseFile {
  let path: String

  init(_ name: String) {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("intentmesh-\(name)-\(UUID().uuidString).sqlite")
      .path
  }

  func remove() {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
  }
}
