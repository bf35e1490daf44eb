import Foundation
import SwiftProtobuf

/// proto3 JSON ↔ protobuf binary for any message a `ProtoSchema` describes: how `intentmesh` builds
/// and reads payloads of intents it was not built with. JSON values are JSONSerialization's
/// (dictionaries, arrays, strings, numbers, booleans). Covers scalars, enums (by name or number),
/// nested and repeated messages, packed repeated scalars, maps, and the well-known wrappers,
/// Timestamp, Duration, Empty and Any.
struct ProtoJSONCodec: Sendable {
  typealias FieldType = Google_Protobuf_FieldDescriptorProto.TypeEnum

  let schema: ProtoSchema

  static let wrappers: [String: FieldType] = [
    "google.protobuf.DoubleValue": .double, "google.protobuf.FloatValue": .float,
    "google.protobuf.Int64Value": .int64, "google.protobuf.UInt64Value": .uint64,
    "google.protobuf.Int32Value": .int32, "google.protobuf.UInt32Value": .uint32,
    "google.protobuf.BoolValue": .bool, "google.protobuf.StringValue": .string,
    "google.protobuf.BytesValue": .bytes,
  ]

  // MARK: - JSON → binary

  /// The binary encoding of `json` as a `type` message.
  func encode(_ json: Any, as type: String) throws -> Data {
    var out = Data()
    try encodeMessage(json, as: type, into: &out)
    return out
  }

  /// `json` as a `type` message packed in an Any.
  func packed(_ json: Any, as type: String) throws -> Google_Protobuf_Any {
    var any = Google_Protobuf_Any()
    any.typeURL = "type.googleapis.com/" + type
    any.value = try encode(json, as: type)
    return any
  }

  private func encodeMessage(_ json: Any, as type: String, into out: inout Data) throws {
    if let scalar = Self.wrappers[type] {
      try encodeField(number: 1, type: scalar, typeName: "", value: json, into: &out)
      return
    }
    switch type {
    case "google.protobuf.Timestamp", "google.protobuf.Duration":
      guard let text = json as? String else { throw CLIError("\(type) is a string in JSON, not \(json)") }
      let (seconds, nanos) = try type.hasSuffix("Timestamp") ? Self.timestamp(text) : Self.duration(text)
      if seconds != 0 { try encodeField(number: 1, type: .int64, typeName: "", value: seconds, into: &out) }
      if nanos != 0 { try encodeField(number: 2, type: .int32, typeName: "", value: nanos, into: &out) }
      return
    case "google.protobuf.Any":
      guard var object = json as? [String: Any], let url = object.removeValue(forKey: "@type") as? String else {
        throw CLIError("an Any needs \"@type\": \(json)")
      }
      let inner = String(url.split(separator: "/").last ?? "")
      let body: Any = Self.isSpecial(inner) ? (object["value"] ?? NSNull()) : object
      try encodeField(number: 1, type: .string, typeName: "", value: url, into: &out)
      try encodeField(number: 2, type: .bytes, typeName: "", value: try encode(body, as: inner), into: &out)
      return
    default: break
    }
    guard let object = json as? [String: Any] else { throw CLIError("\(type) is an object in JSON, not \(json)") }
    let message = try schema.message(type)
    var fields: [(ProtoSchema.Field, Any)] = []
    for (key, value) in object where !(value is NSNull) {
      guard let field = message.field(named: key) else { throw CLIError("\(type) has no field \(key)") }
      fields.append((field, value))
    }
    for (field, value) in fields.sorted(by: { $0.0.number < $1.0.number }) {
      try encodeMember(field, value, into: &out)
    }
  }

  private func encodeMember(_ field: ProtoSchema.Field, _ value: Any, into out: inout Data) throws {
    if field.isRepeated, let entry = schema.messages[field.typeName], entry.isMapEntry {
      guard let object = value as? [String: Any] else { throw CLIError("\(field.jsonName) is a map: a JSON object") }
      let (key, item) = (try entry.field(number: 1).orThrow(), try entry.field(number: 2).orThrow())
      for (name, element) in object.sorted(by: { $0.key < $1.key }) {
        var body = Data()
        try encodeField(number: 1, type: key.type, typeName: key.typeName, value: name, into: &body)
        try encodeField(number: 2, type: item.type, typeName: item.typeName, value: element, into: &body)
        Self.tag(field.number, wire: 2, into: &out)
        Self.varint(UInt64(body.count), into: &out)
        out.append(body)
      }
    } else if field.isRepeated {
      guard let array = value as? [Any] else { throw CLIError("\(field.jsonName) is a list: a JSON array") }
      if Self.isPackable(field.type) {
        var body = Data()
        for element in array { try encodeScalar(field.type, typeName: field.typeName, element, into: &body) }
        Self.tag(field.number, wire: 2, into: &out)
        Self.varint(UInt64(body.count), into: &out)
        out.append(body)
      } else {
        for element in array {
          try encodeField(number: field.number, type: field.type, typeName: field.typeName, value: element, into: &out)
        }
      }
    } else {
      try encodeField(number: field.number, type: field.type, typeName: field.typeName, value: value, into: &out)
    }
  }

  private func encodeField(number: Int, type: FieldType, typeName: String, value: Any, into out: inout Data) throws {
    switch type {
    case .message, .group:
      var body = Data()
      try encodeMessage(value, as: typeName, into: &body)
      Self.tag(number, wire: 2, into: &out)
      Self.varint(UInt64(body.count), into: &out)
      out.append(body)
    case .string, .bytes:
      let bytes: Data
      if let data = value as? Data {
        bytes = data
      } else if let text = value as? String {
        guard type == .string || Data(base64Encoded: text) != nil else {
          throw CLIError("bytes are base64 in JSON, not \(text)")
        }
        bytes = type == .string ? Data(text.utf8) : Data(base64Encoded: text) ?? Data()
      } else {
        throw CLIError("a \(type == .string ? "string" : "base64 string") is needed, not \(value)")
      }
      Self.tag(number, wire: 2, into: &out)
      Self.varint(UInt64(bytes.count), into: &out)
      out.append(bytes)
    default:
      Self.tag(number, wire: Self.wireType(type), into: &out)
      try encodeScalar(type, typeName: typeName, value, into: &out)
    }
  }

  private func encodeScalar(_ type: FieldType, typeName: String, _ value: Any, into out: inout Data) throws {
    switch type {
    case .double: Self.fixed64(try Self.double(value).bitPattern, into: &out)
    case .float: Self.fixed32(Float(try Self.double(value)).bitPattern, into: &out)
    case .int64, .int32: Self.varint(UInt64(bitPattern: try Self.integer(value)), into: &out)
    case .uint64, .uint32: Self.varint(UInt64(bitPattern: try Self.integer(value)), into: &out)
    case .sint32, .sint64:
      let number = try Self.integer(value)
      Self.varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)), into: &out)
    case .fixed64, .sfixed64: Self.fixed64(UInt64(bitPattern: try Self.integer(value)), into: &out)
    case .fixed32, .sfixed32: Self.fixed32(UInt32(truncatingIfNeeded: try Self.integer(value)), into: &out)
    case .bool:
      guard let flag = value as? Bool else { throw CLIError("true or false is needed, not \(value)") }
      Self.varint(flag ? 1 : 0, into: &out)
    case .enum:
      if let name = value as? String {
        // The case's name, or its last words as people say them: "minute" for WORKOUT_GOAL_UNIT_TYPE_MINUTE.
        let cases = schema.enums[typeName]?.byName ?? [:]
        let spoken = "_" + name.uppercased().replacingOccurrences(of: " ", with: "_")
        let said = cases.filter { $0.key.hasSuffix(spoken) }
        guard let number = cases[name] ?? (said.count == 1 ? said.first?.value : nil) else {
          throw CLIError("\(name) is not a case of \(typeName): \(cases.keys.sorted().joined(separator: ", "))")
        }
        Self.varint(UInt64(bitPattern: Int64(number)), into: &out)
      } else {
        Self.varint(UInt64(bitPattern: try Self.integer(value)), into: &out)
      }
    default: throw CLIError("field type \(type) cannot be packed")
    }
  }

  // MARK: - binary → JSON

  /// The proto3 JSON of `data`, a `type` message.
  func decode(_ data: Data, as type: String) throws -> Any {
    var reader = WireReader(bytes: [UInt8](data))
    if let scalar = Self.wrappers[type] {
      var value: Any = Self.zero(scalar)
      while let (number, wire) = try reader.nextKey() {
        guard number == 1 else {
          try reader.skip(wire)
          continue
        }
        value = try readValue(scalar, typeName: "", wire: wire, from: &reader)
      }
      return value
    }
    switch type {
    case "google.protobuf.Timestamp", "google.protobuf.Duration":
      var (seconds, nanos): (Int64, Int32) = (0, 0)
      while let (number, wire) = try reader.nextKey() {
        switch number {
        case 1: seconds = Int64(bitPattern: try reader.varint())
        case 2: nanos = Int32(truncatingIfNeeded: Int64(bitPattern: try reader.varint()))
        default: try reader.skip(wire)
        }
      }
      return type.hasSuffix("Timestamp")
        ? Self.timestampText(seconds: seconds, nanos: nanos) : Self.durationText(seconds: seconds, nanos: nanos)
    case "google.protobuf.Any":
      var (url, body) = ("", Data())
      while let (number, wire) = try reader.nextKey() {
        switch number {
        case 1: url = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
        case 2: body = Data(try reader.lengthDelimited())
        default: try reader.skip(wire)
        }
      }
      let inner = String(url.split(separator: "/").last ?? "")
      let value = try decode(body, as: inner)
      var object = Self.isSpecial(inner) ? ["value": value] : (value as? [String: Any] ?? [:])
      object["@type"] = url
      return object
    default:
      return try decodeMessage(&reader, try schema.message(type))
    }
  }

  private func decodeMessage(_ reader: inout WireReader, _ message: ProtoSchema.Message) throws -> [String: Any] {
    var members: [String: Any] = [:]
    while let (number, wire) = try reader.nextKey() {
      guard let field = message.field(number: number) else {
        try reader.skip(wire)
        continue
      }
      if field.isRepeated, let entry = schema.messages[field.typeName], entry.isMapEntry {
        let pair = try decode(Data(try reader.lengthDelimited()), as: entry.fullName) as? [String: Any] ?? [:]
        var map = members[field.jsonName] as? [String: Any] ?? [:]
        let (key, item) = (try entry.field(number: 1).orThrow(), try entry.field(number: 2).orThrow())
        map["\(pair[key.jsonName] ?? "")"] = pair[item.jsonName] ?? Self.zero(item.type)
        members[field.jsonName] = map
      } else if field.isRepeated {
        var list = members[field.jsonName] as? [Any] ?? []
        if wire == 2, Self.isPackable(field.type) {
          var packed = WireReader(bytes: try reader.lengthDelimited())
          while !packed.atEnd {
            list.append(
              try readValue(field.type, typeName: field.typeName, wire: Self.wireType(field.type), from: &packed))
          }
        } else {
          list.append(try readValue(field.type, typeName: field.typeName, wire: wire, from: &reader))
        }
        members[field.jsonName] = list
      } else {
        members[field.jsonName] = try readValue(field.type, typeName: field.typeName, wire: wire, from: &reader)
      }
    }
    return members
  }

  private func readValue(_ type: FieldType, typeName: String, wire: Int, from reader: inout WireReader) throws -> Any {
    switch type {
    case .message, .group: return try decode(Data(try reader.lengthDelimited()), as: typeName)
    case .string: return String(decoding: try reader.lengthDelimited(), as: UTF8.self)
    case .bytes: return Data(try reader.lengthDelimited()).base64EncodedString()
    case .double: return Double(bitPattern: try reader.fixed64())
    case .float: return Double(Float(bitPattern: try reader.fixed32()))
    case .int64: return String(Int64(bitPattern: try reader.varint()))
    case .uint64: return String(try reader.varint())
    case .fixed64: return String(try reader.fixed64())
    case .sfixed64: return String(Int64(bitPattern: try reader.fixed64()))
    case .int32: return Int(Int32(truncatingIfNeeded: Int64(bitPattern: try reader.varint())))
    case .uint32: return Int(UInt32(truncatingIfNeeded: try reader.varint()))
    case .fixed32: return Int(try reader.fixed32())
    case .sfixed32: return Int(Int32(bitPattern: try reader.fixed32()))
    case .sint32, .sint64:
      let raw = try reader.varint()
      let number = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
      return type == .sint64 ? String(number) as Any : Int(number) as Any
    case .bool: return try reader.varint() != 0
    case .enum:
      let number = Int32(truncatingIfNeeded: Int64(bitPattern: try reader.varint()))
      return schema.enums[typeName]?.byNumber[number] ?? Int(number)
    default: throw CLIError("field type \(type) is not supported")
    }
  }

  // MARK: - pieces

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

/// Reads protobuf's wire format.
struct WireReader {
  let bytes: [UInt8]
  var position = 0

  var atEnd: Bool { position >= bytes.count }

  /// The next field's number and wire type, or nil at the end.
  mutating func nextKey() throws -> (Int, Int)? {
    guard !atEnd else { return nil }
    let key = try varint()
    return (Int(key >> 3), Int(key & 7))
  }

  mutating func varint() throws -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < bytes.count, shift < 64 else { throw CLIError("a truncated or malformed message") }
      let byte = bytes[position]
      position += 1
      result |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { return result }
      shift += 7
    }
  }

  mutating func fixed64() throws -> UInt64 {
    try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  mutating func fixed32() throws -> UInt32 {
    try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func lengthDelimited() throws -> [UInt8] {
    try take(Int(try varint()))
  }

  mutating func take(_ count: Int) throws -> [UInt8] {
    guard count >= 0, position + count <= bytes.count else { throw CLIError("a truncated message") }
    defer { position += count }
    return Array(bytes[position..<position + count])
  }

  mutating func skip(_ wire: Int) throws {
    switch wire {
    case 0: _ = try varint()
    case 1: _ = try take(8)
    case 2: _ = try lengthDelimited()
    case 5: _ = try take(4)
    default: throw CLIError("wire type \(wire) is not supported")
    }
  }
}

extension Optional {
  /// The value, or an error saying the descriptors are incomplete.
  func orThrow() throws -> Wrapped {
    guard let self else { throw CLIError("incomplete descriptors") }
    return self
  }
}
