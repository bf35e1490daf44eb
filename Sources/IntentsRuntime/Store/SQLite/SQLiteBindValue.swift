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
    switch value {
    case let text as String: .text(text)
    case let integer as Int: .integer(integer)
    case let integer as Int64: .integer(Int(integer))
    case let integer as Int32: .integer(Int(integer))
    case let flag as Bool: .integer(flag ? 1 : 0)
    case let number as Double: .float(number)
    case let data as SQLiteData: data
    case let text as String?: text.map { .text($0) } ?? .null
    case let integer as Int?: integer.map { .integer($0) } ?? .null
    case let integer as Int64?: integer.map { .integer(Int($0)) } ?? .null
    case let integer as Int32?: integer.map { .integer(Int($0)) } ?? .null
    case let flag as Bool?: flag.map { .integer($0 ? 1 : 0) } ?? .null
    case let number as Double?: number.map { .float($0) } ?? .null
    default: nil
    }
  }
}
