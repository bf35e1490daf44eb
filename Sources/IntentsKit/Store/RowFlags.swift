package import SQLKit

/// Flags in rows: an INTEGER column holding 0 or 1, the same on SQLite and PostgreSQL (a bound Swift
/// `Bool` would be a PostgreSQL `boolean`, which an INTEGER column refuses).
extension Bool {
  /// The column value of this flag: 1 or 0.
  package var rowValue: Int { self ? 1 : 0 }
}

extension SQLRow {
  /// The flag in `column`: any non-zero integer is true; NULL (a column an outer join left empty) false.
  package func decodeFlag(column: String) throws -> Bool {
    (try decode(column: column, as: Int?.self) ?? 0) != 0
  }
}
