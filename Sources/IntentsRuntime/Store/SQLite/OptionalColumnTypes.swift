/// The metadata of the optional types `SQLiteResultRow` decodes and `SQLiteBindValue` binds
/// directly, looked up once: in code that is not specialized for them, naming `String?` looks its
/// metadata up in the runtime's cache on every use (~400 instructions).
enum OptionalColumnTypes {
  static let string: Any.Type = String?.self
  static let int: Any.Type = Int?.self
  static let int64: Any.Type = Int64?.self
  static let int32: Any.Type = Int32?.self
  static let bool: Any.Type = Bool?.self
  static let double: Any.Type = Double?.self
}
