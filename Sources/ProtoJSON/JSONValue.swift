/// A JSON value as proto3's JSON mapping needs it: members kept in the order they came, numbers
/// kept as the text they were written in (an int64 is not rounded through a Double).
package enum JSONValue: Sendable, Equatable {
  case null
  case bool(Bool)
  /// A number literal, as written (`12`, `-0.5`, `1e3`).
  case number(String)
  case string(String)
  case array([JSONValue])
  /// Members in order; a name given twice keeps both (the reader refuses that, see `JSONReader`).
  case object([(String, JSONValue)])

  package static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
    switch (lhs, rhs) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)): a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// A number from an integer.
  package static func integer(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

  /// A number from a Double: NaN and the infinities as proto3 JSON spells them (strings), integral
  /// values without a fraction, -0 kept.
  package static func double(_ value: Double) -> JSONValue {
    if value.isNaN { return .string("NaN") }
    if value.isInfinite { return .string(value < 0 ? "-Infinity" : "Infinity") }
    if value == 0 { return .number(value.sign == .minus ? "-0" : "0") }
    if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int64(value))) }
    return .number("\(value)")
  }

  /// A number from a Float, written with a Float's shortest digits (0.1, not 0.100000001).
  package static func float(_ value: Float) -> JSONValue {
    if value.isNaN || value.isInfinite || value == 0 || value == value.rounded() { return double(Double(value)) }
    return .number("\(value)")
  }

  /// The member `name` of an object.
  package subscript(name: String) -> JSONValue? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == name }?.1
  }

  /// The members of an object, or nil.
  package var members: [(String, JSONValue)]? {
    if case .object(let members) = self { return members }
    return nil
  }

  /// The string, or nil.
  package var stringValue: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  /// The value written as compact JSON.
  package var text: String { String(decoding: utf8, as: UTF8.self) }

  /// The value written as compact JSON, in UTF-8: what a body carries.
  package var utf8: [UInt8] {
    var out: [UInt8] = []
    write(into: &out)
    return out
  }

  /// Appends the compact JSON of this value to `out`, in UTF-8.
  package func write(into out: inout [UInt8]) {
    switch self {
    case .null: out += Self.nullBytes
    case .bool(let flag): out += flag ? Self.trueBytes : Self.falseBytes
    case .number(let literal): out += literal.utf8
    case .string(let text): Self.writeString(text, into: &out)
    case .array(let elements):
      out.append(UInt8(ascii: "["))
      for (position, element) in elements.enumerated() {
        if position > 0 { out.append(UInt8(ascii: ",")) }
        element.write(into: &out)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let members):
      out.append(UInt8(ascii: "{"))
      for (position, (name, value)) in members.enumerated() {
        if position > 0 { out.append(UInt8(ascii: ",")) }
        Self.writeString(name, into: &out)
        out.append(UInt8(ascii: ":"))
        value.write(into: &out)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  private static let nullBytes = Array("null".utf8)
  private static let trueBytes = Array("true".utf8)
  private static let falseBytes = Array("false".utf8)
  private static let hexDigits = Array("0123456789abcdef".utf8)

  /// `text` as a JSON string: quotes, backslashes and control characters escaped; every other
  /// character as its UTF-8 bytes (each byte of a character beyond ASCII is 0x80 or more, so none
  /// is taken for one that needs escaping).
  static func writeString(_ text: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
      case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
      case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
      case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
      case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
      case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
      case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
      case ..<0x20:
        out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")]
        out += [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }
}
