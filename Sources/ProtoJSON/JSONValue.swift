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
  package var text: String {
    var out = ""
    write(into: &out)
    return out
  }

  /// Appends the compact JSON of this value to `out`.
  package func write(into out: inout String) {
    switch self {
    case .null: out += "null"
    case .bool(let flag): out += flag ? "true" : "false"
    case .number(let literal): out += literal
    case .string(let text): Self.writeString(text, into: &out)
    case .array(let elements):
      out += "["
      for (position, element) in elements.enumerated() {
        if position > 0 { out += "," }
        element.write(into: &out)
      }
      out += "]"
    case .object(let members):
      out += "{"
      for (position, (name, value)) in members.enumerated() {
        if position > 0 { out += "," }
        Self.writeString(name, into: &out)
        out += ":"
        value.write(into: &out)
      }
      out += "}"
    }
  }

  /// `text` as a JSON string: quotes, backslashes and control characters escaped.
  static func writeString(_ text: String, into out: inout String) {
    out += "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      case _ where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
