internal import CSQLiteOptions
internal import VaporCSQLite

/// The header of a database's WAL index (the first bytes of its `-shm` file), read in place from
/// the mapping SQLite keeps for a connection, without a lock or a system call. SQLite writes the
/// header anew with every commit of any connection, in this process or another (its commit counter
/// moves, and the log's length, salts and frame checksums with it), with every restart of the log
/// and every recovery: while it reads the same, nothing has been committed since.
struct WALIndex {
  /// The 48 bytes of one header, as six words.
  struct Header: Equatable {
    var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

    static func == (left: Header, right: Header) -> Bool { left.words == right.words }
  }

  /// Region 0 of the WAL index as SQLite mapped it: valid while the connection is open (SQLite
  /// unmaps it when the last connection of the process to the file closes).
  private let region: UnsafeRawPointer

  /// The WAL index SQLite has mapped for `connection`'s database, or nil when it has none mapped
  /// (no read transaction yet; another VFS, or a WAL index in heap memory). Asked only of a
  /// connection in WAL mode: of another, SQLite would make a `-shm` file.
  init?(connection: OpaquePointer) {
    var file: UnsafeMutablePointer<sqlite3_file>?
    guard sqlite_nio_sqlite3_file_control(connection, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
      let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
      let map = methods.pointee.xShmMap
    else { return nil }
    // Region 0 (32 KiB), not extended: SQLite's own pointer to it, mapped by its first read.
    var region: UnsafeMutableRawPointer?
    guard map(file, 0, 32768, 0, &region) == SQLITE_OK, let region else { return nil }
    self.region = UnsafeRawPointer(region)
  }

  /// The header now, or nil while a writer is changing it (its two copies differ) or before it
  /// was ever written.
  func header() -> Header? {
    var header = Header()
    let consistent = withUnsafeMutableBytes(of: &header.words) { bytes in
      intentmesh_wal_index_header(region, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
    }
    return consistent == 1 ? header : nil
  }
}
