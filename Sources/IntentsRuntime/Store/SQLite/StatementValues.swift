internal import NIOCore
internal import SQLiteNIO
internal import VaporCSQLite

/// A prepared statement's values in and out: a value bound to a parameter, a row's columns read.
enum StatementValues {
  /// `SQLITE_TRANSIENT`: SQLite copies a bound text or blob before `bind` returns.
  private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

  /// Binds `value` to parameter `index` (from 1) of `statement`; SQLite's result code.
  static func bind(_ value: SQLiteData, at index: Int32, of statement: OpaquePointer) -> Int32 {
    switch value {
    case .integer(let integer):
      sqlite_nio_sqlite3_bind_int64(statement, index, Int64(integer))
    case .float(let double):
      sqlite_nio_sqlite3_bind_double(statement, index, double)
    case .text(var text):
      // Bound from the string's own bytes (a string of up to 15 bytes, kept inline, lends a copy
      // on the stack); passing the string as a C string copied such a short one to a new array.
      text.withUTF8 { utf8 in
        // An empty string may have no address; a null pointer would bind NULL, not "".
        guard let bytes = utf8.baseAddress else {
          return sqlite_nio_sqlite3_bind_text64(statement, index, "", 0, transient, UInt8(SQLITE_UTF8))
        }
        return sqlite_nio_sqlite3_bind_text64(
          statement, index, UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self), UInt64(utf8.count),
          transient, UInt8(SQLITE_UTF8))
      }
    case .blob(let bytes):
      bytes.withUnsafeReadableBytes {
        sqlite_nio_sqlite3_bind_blob64(statement, index, $0.baseAddress, UInt64($0.count), transient)
      }
    case .null:
      sqlite_nio_sqlite3_bind_null(statement, index)
    }
  }

  /// The first `count` columns of `statement`'s current row.
  static func row(of statement: OpaquePointer, count: Int) -> [SQLiteData] {
    (0..<Int32(count)).map { column in
      switch sqlite_nio_sqlite3_column_type(statement, column) {
      case SQLITE_INTEGER:
        return .integer(SQLiteInt64(sqlite_nio_sqlite3_column_int64(statement, column)))
      case SQLITE_FLOAT:
        return .float(sqlite_nio_sqlite3_column_double(statement, column))
      case SQLITE_TEXT:
        guard let text = sqlite_nio_sqlite3_column_text(statement, column) else { return .text("") }
        let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
        return .text(String(decoding: UnsafeBufferPointer(start: text, count: length), as: UTF8.self))
      case SQLITE_BLOB:
        let length = Int(sqlite_nio_sqlite3_column_bytes(statement, column))
        var buffer = ByteBufferAllocator().buffer(capacity: length)
        if let blob = sqlite_nio_sqlite3_column_blob(statement, column) {
          buffer.writeBytes(UnsafeRawBufferPointer(start: blob, count: length))
        }
        return .blob(buffer)
      default:
        return .null
      }
    }
  }
}
