#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import SwiftProtobuf

/// protobuf's wire format written by hand (varints, fixed-width numbers, length-delimited fields),
/// and proto3 JSON's spellings of numbers and bytes.
enum ProtoWire {
  typealias FieldType = Google_Protobuf_FieldDescriptorProto.TypeEnum

  static func isPackable(_ type: FieldType) -> Bool {
    switch type {
    case .string, .bytes, .message, .group: false
    default: true
    }
  }

  static func wireType(_ type: FieldType) -> Int {
    switch type {
    case .double, .fixed64, .sfixed64: 1
    case .float, .fixed32, .sfixed32: 5
    case .string, .bytes, .message, .group: 2
    default: 0
    }
  }

  static func tag(_ number: Int, wire: Int, into out: inout [UInt8]) { varint(UInt64(number << 3 | wire), into: &out) }

  static func lengthDelimited(_ number: Int, _ body: [UInt8], into out: inout [UInt8]) {
    tag(number, wire: 2, into: &out)
    varint(UInt64(body.count), into: &out)
    out += body
  }

  static func varint(_ value: UInt64, into out: inout [UInt8]) {
    var rest = value
    while rest >= 0x80 {
      out.append(UInt8(rest & 0x7f) | 0x80)
      rest >>= 7
    }
    out.append(UInt8(rest))
  }

  static func fixed64(_ value: UInt64, into out: inout [UInt8]) {
    for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
  }

  static func fixed32(_ value: UInt32, into out: inout [UInt8]) {
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
  }

  /// An integer field's value: a JSON number or a string holding one (integral, in the type's range).
  static func integer(_ value: JSONValue, _ type: FieldType) throws(ProtoJSONError) -> Int64 {
    let text: String
    switch value {
    case .number(let literal): text = literal
    case .string(let literal): text = literal
    default: throw ProtoJSONError("an integer is needed, not \(value.text)")
    }
    let range: ClosedRange<Double>
    switch type {
    case .int32, .sint32, .sfixed32: range = -2_147_483_648...2_147_483_647
    case .uint32, .fixed32: range = 0...4_294_967_295
    case .uint64, .fixed64:
      if let number = UInt64(text) { return Int64(bitPattern: number) }
      range = 0...1.8446744073709552e19
    default:
      if let number = Int64(text) { return number }
      range = -9.223372036854776e18...9.223372036854776e18
    }
    if let number = Int64(text), range.contains(Double(number)) { return number }
    guard let number = Double(text), number.rounded() == number, range.contains(number),
      abs(number) < 9.2e18
    else { throw ProtoJSONError("\(text) is not an integer that a \(type) field holds") }
    return Int64(number)
  }

  /// A floating-point field's value: a number, or "NaN", "Infinity", "-Infinity", or a string
  /// holding a number.
  static func double(_ value: JSONValue) throws(ProtoJSONError) -> Double {
    switch value {
    case .number(let literal):
      if let number = Double(literal) { return number }
    case .string("NaN"): return .nan
    case .string("Infinity"): return .infinity
    case .string("-Infinity"): return -.infinity
    case .string(let literal):
      if let number = Double(literal), number.isFinite { return number }
    default: break
    }
    throw ProtoJSONError("a number is needed, not \(value.text)")
  }

  /// Standard base64 with padding, as proto3 JSON writes bytes.
  static func base64Encoded(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
  }

  /// Bytes from base64, standard or URL-safe, padded or not (proto3 JSON parsers accept all four).
  static func base64Decoded(_ text: String) -> [UInt8]? {
    var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
    standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
    return Data(base64Encoded: standard).map { [UInt8]($0) }
  }
}
