#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
package import SwiftProtobuf
internal import IntentMeshCore

/// proto3 JSON (protobuf's canonical JSON mapping) ↔ protobuf binary for any message a `ProtoSchema`
/// describes, without the generated types: how the CLI builds payloads of intents it was not built
/// with and how the gateway answers Connect JSON for every method it serves or relays. Covers
/// scalars (64-bit integers as strings), enums (by name or number), nested and repeated messages,
/// packed repeated scalars, maps, and the well-known wrappers, Timestamp, Duration, Empty and Any.
/// Struct, Value, ListValue and FieldMask are refused: no IntentMesh contract uses them.
package struct ProtoJSONCodec: Sendable {
  typealias FieldType = Google_Protobuf_FieldDescriptorProto.TypeEnum

  package let schema: ProtoSchema
  /// Whether an enum case may also be named by its last words as people say them ("minute" for
  /// WORKOUT_GOAL_UNIT_TYPE_MINUTE): for a person typing at the CLI, never for an API (a case added
  /// later could make a name that worked ambiguous).
  package let acceptsSpokenEnumNames: Bool

  package init(schema: ProtoSchema, acceptsSpokenEnumNames: Bool = false) {
    self.schema = schema
    self.acceptsSpokenEnumNames = acceptsSpokenEnumNames
  }

  static let wrappers: [String: FieldType] = [
    "google.protobuf.DoubleValue": .double, "google.protobuf.FloatValue": .float,
    "google.protobuf.Int64Value": .int64, "google.protobuf.UInt64Value": .uint64,
    "google.protobuf.Int32Value": .int32, "google.protobuf.UInt32Value": .uint32,
    "google.protobuf.BoolValue": .bool, "google.protobuf.StringValue": .string,
    "google.protobuf.BytesValue": .bytes,
  ]

  static let unsupported: Set<String> = [
    "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue", "google.protobuf.FieldMask",
  ]

  // MARK: - JSON → binary

  /// The binary encoding of `json` as a `type` message.
  package func encode(_ json: JSONValue, as type: String) throws(ProtoJSONError) -> [UInt8] {
    var out: [UInt8] = []
    try encodeMessage(json, as: type, into: &out)
    return out
  }

  /// `json` as a `type` message packed in an Any.
  package func packed(_ json: JSONValue, as type: String) throws(ProtoJSONError) -> Google_Protobuf_Any {
    var any = Google_Protobuf_Any()
    any.typeURL = "type.googleapis.com/" + type
    any.value = Data(try encode(json, as: type))
    return any
  }

  private func encodeMessage(_ json: JSONValue, as type: String, into out: inout [UInt8]) throws(ProtoJSONError) {
    if let scalar = Self.wrappers[type] {
      try encodeField(number: 1, type: scalar, typeName: "", value: json, into: &out)
      return
    }
    switch type {
    case "google.protobuf.Timestamp", "google.protobuf.Duration":
      guard case .string(let text) = json else { throw ProtoJSONError("\(type) is a string in JSON, not \(json.text)") }
      let (seconds, nanos) = try type.hasSuffix("Timestamp") ? ProtoTime.timestamp(text) : ProtoTime.duration(text)
      if seconds != 0 {
        ProtoWire.tag(1, wire: 0, into: &out); ProtoWire.varint(UInt64(bitPattern: seconds), into: &out)
      }
      if nanos != 0 {
        ProtoWire.tag(2, wire: 0, into: &out); ProtoWire.varint(UInt64(bitPattern: Int64(nanos)), into: &out)
      }
      return
    case "google.protobuf.Any":
      // An empty Any (no type URL, no value) is `{}`, as every proto3 JSON codec writes it.
      if case .object(let members) = json, members.isEmpty { return }
      guard case .object(var members) = json, let at = members.firstIndex(where: { $0.0 == "@type" }),
        case .string(let url) = members[at].1
      else { throw ProtoJSONError("an Any needs \"@type\": \(json.text)") }
      members.remove(at: at)
      let inner = Self.typeName(fromURL: url)
      let body: JSONValue = Self.isSpecial(inner) ? (members.first { $0.0 == "value" }?.1 ?? .null) : .object(members)
      ProtoWire.lengthDelimited(1, Array(url.utf8), into: &out)
      ProtoWire.lengthDelimited(2, try encode(body, as: inner), into: &out)
      return
    case _ where Self.unsupported.contains(type):
      throw ProtoJSONError("\(type) is not supported in JSON here")
    default: break
    }
    guard case .object(let members) = json else {
      throw ProtoJSONError("\(type) is an object in JSON, not \(json.text)")
    }
    let message = try schema.message(type)
    var fields: [(ProtoSchema.Field, JSONValue)] = []
    for (key, value) in members where value != .null {
      guard let field = message.field(named: key) else { throw ProtoJSONError("\(type) has no field \(key)") }
      guard !fields.contains(where: { $0.0.number == field.number }) else {
        throw ProtoJSONError("\(type).\(field.jsonName) is given twice")
      }
      fields.append((field, value))
    }
    for (field, value) in fields.sorted(by: { $0.0.number < $1.0.number }) {
      try encodeMember(field, value, into: &out)
    }
  }

  private func encodeMember(_ field: ProtoSchema.Field, _ value: JSONValue, into out: inout [UInt8])
    throws(ProtoJSONError)
  {
    if field.isRepeated, let entry = schema.messages[field.typeName], entry.isMapEntry {
      guard case .object(let members) = value else { throw ProtoJSONError("\(field.jsonName) is a map: a JSON object") }
      guard let key = entry.field(number: 1), let item = entry.field(number: 2) else {
        throw ProtoJSONError("incomplete descriptor of \(entry.fullName)")
      }
      for (name, element) in members {
        var body: [UInt8] = []
        let keyValue: JSONValue =
          key.type == .bool ? .bool(name == "true") : (key.type == .string ? .string(name) : .number(name))
        try encodeField(number: 1, type: key.type, typeName: key.typeName, value: keyValue, into: &body)
        try encodeField(number: 2, type: item.type, typeName: item.typeName, value: element, into: &body)
        ProtoWire.lengthDelimited(field.number, body, into: &out)
      }
    } else if field.isRepeated {
      guard case .array(let elements) = value else { throw ProtoJSONError("\(field.jsonName) is a list: a JSON array") }
      if ProtoWire.isPackable(field.type) {
        var body: [UInt8] = []
        for element in elements { try encodeScalar(field.type, typeName: field.typeName, element, into: &body) }
        ProtoWire.lengthDelimited(field.number, body, into: &out)
      } else {
        for element in elements {
          try encodeField(number: field.number, type: field.type, typeName: field.typeName, value: element, into: &out)
        }
      }
    } else {
      try encodeField(number: field.number, type: field.type, typeName: field.typeName, value: value, into: &out)
    }
  }

  private func encodeField(number: Int, type: FieldType, typeName: String, value: JSONValue, into out: inout [UInt8])
    throws(ProtoJSONError)
  {
    switch type {
    case .message, .group:
      ProtoWire.lengthDelimited(number, try encode(value, as: typeName), into: &out)
    case .string:
      guard case .string(let text) = value else { throw ProtoJSONError("a string is needed, not \(value.text)") }
      ProtoWire.lengthDelimited(number, Array(text.utf8), into: &out)
    case .bytes:
      guard case .string(let text) = value, let bytes = ProtoWire.base64Decoded(text) else {
        throw ProtoJSONError("bytes are base64 in JSON, not \(value.text)")
      }
      ProtoWire.lengthDelimited(number, bytes, into: &out)
    default:
      ProtoWire.tag(number, wire: ProtoWire.wireType(type), into: &out)
      try encodeScalar(type, typeName: typeName, value, into: &out)
    }
  }

  private func encodeScalar(_ type: FieldType, typeName: String, _ value: JSONValue, into out: inout [UInt8])
    throws(ProtoJSONError)
  {
    switch type {
    case .double: ProtoWire.fixed64(try ProtoWire.double(value).bitPattern, into: &out)
    case .float: ProtoWire.fixed32(Float(try ProtoWire.double(value)).bitPattern, into: &out)
    case .int64, .sfixed64, .fixed64, .uint64, .int32, .sfixed32, .fixed32, .uint32, .sint32, .sint64:
      let number = try ProtoWire.integer(value, type)
      switch type {
      case .sint32, .sint64: ProtoWire.varint(Wire.zigZag(number), into: &out)
      case .fixed64, .sfixed64: ProtoWire.fixed64(UInt64(bitPattern: number), into: &out)
      case .fixed32, .sfixed32: ProtoWire.fixed32(UInt32(truncatingIfNeeded: number), into: &out)
      default: ProtoWire.varint(UInt64(bitPattern: number), into: &out)
      }
    case .bool:
      guard case .bool(let flag) = value else { throw ProtoJSONError("true or false is needed, not \(value.text)") }
      ProtoWire.varint(flag ? 1 : 0, into: &out)
    case .enum:
      if case .string(let name) = value {
        ProtoWire.varint(UInt64(bitPattern: Int64(try enumNumber(name, of: typeName))), into: &out)
      } else {
        ProtoWire.varint(UInt64(bitPattern: try ProtoWire.integer(value, .int32)), into: &out)
      }
    default: throw ProtoJSONError("field type \(type) is not supported")
    }
  }

  /// The number of the case `name` of `typeName`: its proto name, or its last words as people say
  /// them ("minute" for WORKOUT_GOAL_UNIT_TYPE_MINUTE) when only one case ends so.
  private func enumNumber(_ name: String, of typeName: String) throws(ProtoJSONError) -> Int32 {
    let cases = schema.enums[typeName]?.byName ?? [:]
    if let number = cases[name] { return number }
    guard acceptsSpokenEnumNames else {
      throw ProtoJSONError("\(name) is not a case of \(typeName): \(cases.keys.sorted().joined(separator: ", "))")
    }
    let spoken = "_" + String(name.uppercased().map { $0 == " " ? "_" : $0 })
    let said = cases.filter { $0.key.hasSuffix(spoken) }
    guard said.count == 1, let number = said.first?.value else {
      throw ProtoJSONError("\(name) is not a case of \(typeName): \(cases.keys.sorted().joined(separator: ", "))")
    }
    return number
  }

  /// `bytes` in standard base64 with padding, as proto3 JSON writes bytes.
  package static func base64(_ bytes: [UInt8]) -> String { ProtoWire.base64Encoded(bytes) }

  /// The bytes of base64 text, standard or URL-safe, padded or not; nil when it is not base64.
  package static func base64Decoded(_ text: String) -> [UInt8]? { ProtoWire.base64Decoded(text) }

  /// The message name an Any's type URL ends with.
  static func typeName(fromURL url: String) -> String {
    String(url.split(separator: "/").last ?? "")
  }

  /// Types whose JSON is not an object of their fields.
  static func isSpecial(_ type: String) -> Bool {
    wrappers[type] != nil || type == "google.protobuf.Timestamp" || type == "google.protobuf.Duration"
      || type == "google.protobuf.Any"
  }
}
