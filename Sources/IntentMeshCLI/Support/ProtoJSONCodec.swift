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
}
