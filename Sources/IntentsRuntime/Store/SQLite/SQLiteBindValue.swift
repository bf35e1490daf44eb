internal import SQLiteKit
internal import SQLiteNIO

/// The SQLite value of a statement's bound parameter. The types nearly every bind is (text,
/// integers, flags, doubles, and those optional) are converted directly, to exactly what
/// `SQLiteDataEncoder` makes of them; anything else goes through the encoder, which per use costs a
/// `JSONEncoder` and a protocol conformance lookup per value — more than a small statement itself.
enum SQLiteBindValue {
  /// `value` as SQLite data: directly when its type allows, otherwise by `encoder` (made on first need).
  static func data(_ value: any Encodable, encoder: inout SQLiteDataEncoder?) throws -> SQLiteData {
    if let direct = direct(value) { return direct }
    let made = encoder ?? SQLiteDataEncoder()
    encoder = made
    return try made.encode(value)
  }

  /// `value` as SQLite data when its type is one converted directly; nil otherwise.
  static func direct(_ value: any Encodable) -> SQLiteData? {
    directly(value)
  }

  /// The value's type compared with each directly converted type by its metadata, then
  /// reinterpreted: a `case let text as String` on the existential is a dynamic cast (~300
  /// instructions; ~100 binds a payment, most of them tried against more than one type).
  private static func directly<Value: Encodable>(_ value: Value) -> SQLiteData? {
    let type: Any.Type = Value.self
    if type == String.self { return .text(unsafeBitCast(value, to: String.self)) }
    if type == Int.self { return .integer(unsafeBitCast(value, to: Int.self)) }
    if type == Int64.self { return .integer(Int(unsafeBitCast(value, to: Int64.self))) }
    if type == Int32.self { return .integer(Int(unsafeBitCast(value, to: Int32.self))) }
    if type == Bool.self { return .integer(unsafeBitCast(value, to: Bool.self) ? 1 : 0) }
    if type == Double.self { return .float(unsafeBitCast(value, to: Double.self)) }
    if type == SQLiteData.self { return unsafeBitCast(value, to: SQLiteData.self) }
    if type == OptionalColumnTypes.string { return unsafeBitCast(value, to: String?.self).map { .text($0) } ?? .null }
    if type == OptionalColumnTypes.int { return unsafeBitCast(value, to: Int?.self).map { .integer($0) } ?? .null }
    if type == OptionalColumnTypes.int64 {
      return unsafeBitCast(value, to: Int64?.self).map { .integer(Int($0)) } ?? .null
    }
    if type == OptionalColumnTypes.int32 {
      return unsafeBitCast(value, to: Int32?.self).map { .integer(Int($0)) } ?? .null
    }
    if type == OptionalColumnTypes.bool {
      return unsafeBitCast(value, to: Bool?.self).map { .integer($0 ? 1 : 0) } ?? .null
    }
    if type == OptionalColumnTypes.double { return unsafeBitCast(value, to: Double?.self).map { .float($0) } ?? .null }
    return nil
  }
}
