import Foundation
import SwiftProtobuf

/// The wire and JSON forms of single values: varints, fixed-width numbers, the JSON spellings of
/// numbers, times and durations.
extension ProtoJSONCodec {
  /// Types whose JSON is not an object of their fields.
  static func isSpecial(_ type: String) -> Bool {
    wrappers[type] != nil || type == "google.protobuf.Timestamp" || type == "google.protobuf.Duration"
  }

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

  static func zero(_ type: FieldType) -> Any {
    switch type {
    case .bool: false
    case .string: ""
    case .bytes: Data()
    case .int64, .uint64: "0"
    default: 0
    }
  }

  static func tag(_ number: Int, wire: Int, into out: inout Data) { varint(UInt64(number << 3 | wire), into: &out) }

  static func varint(_ value: UInt64, into out: inout Data) {
    var rest = value
    while rest >= 0x80 {
      out.append(UInt8(rest & 0x7f) | 0x80)
      rest >>= 7
    }
    out.append(UInt8(rest))
  }

  static func fixed64(_ value: UInt64, into out: inout Data) {
    for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
  }

  static func fixed32(_ value: UInt32, into out: inout Data) {
    for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
  }

  static func integer(_ value: Any) throws -> Int64 {
    if let number = value as? Int { return Int64(number) }
    if let number = value as? Int64 { return number }
    if let number = value as? Int32 { return Int64(number) }
    if let text = value as? String, let number = Int64(text) { return number }
    if let number = value as? Double, number.rounded() == number, abs(number) < 9.2e18 { return Int64(number) }
    if let number = value as? NSNumber { return number.int64Value }
    throw CLIError("an integer is needed, not \(value)")
  }

  static func double(_ value: Any) throws -> Double {
    if let number = value as? Double { return number }
    if let number = value as? Int { return Double(number) }
    if let text = value as? String {
      switch text {
      case "NaN": return .nan
      case "Infinity": return .infinity
      case "-Infinity": return -.infinity
      default: if let number = Double(text) { return number }
      }
    }
    if let number = value as? NSNumber { return number.doubleValue }
    throw CLIError("a number is needed, not \(value)")
  }

  /// RFC 3339 ("2026-11-23T22:28:48.660Z") → seconds and nanoseconds since 1970.
  static func timestamp(_ text: String) throws -> (Int64, Int32) {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let plain = ISO8601DateFormatter()
    guard let date = formatter.date(from: text) ?? plain.date(from: text) else {
      throw CLIError("\(text) is not an RFC 3339 time such as 2026-11-23T22:28:48Z")
    }
    let seconds = date.timeIntervalSince1970.rounded(.down)
    return (Int64(seconds), Int32(((date.timeIntervalSince1970 - seconds) * 1e9).rounded()))
  }

  static func timestampText(seconds: Int64, nanos: Int32) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = nanos == 0 ? [.withInternetDateTime] : [.withInternetDateTime, .withFractionalSeconds]
    return formatter.string(from: Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9))
  }

  static func durationText(seconds: Int64, nanos: Int32) -> String {
    let sign = seconds < 0 || nanos < 0 ? "-" : ""
    let fraction = nanos == 0 ? "" : "." + String(String(abs(Int(nanos)) + 1_000_000_000).dropFirst())
    return "\(sign)\(abs(seconds))\(fraction)s"
  }

  /// "1.5s" → seconds and nanoseconds.
  static func duration(_ text: String) throws -> (Int64, Int32) {
    guard text.hasSuffix("s"), let value = Double(text.dropLast()) else {
      throw CLIError("\(text) is not a duration such as 1.5s")
    }
    let seconds = value.rounded(.towardZero)
    return (Int64(seconds), Int32(((value - seconds) * 1e9).rounded()))
  }
}
