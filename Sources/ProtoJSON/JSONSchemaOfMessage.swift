package import SwiftProtobuf

/// The JSON Schema (draft 2020-12) of a message's proto3 JSON, as `ProtoJSONCodec` reads it: members
/// by JSON name, enums by their case names, 64-bit integers as numbers or strings, bytes as
/// base64, the wrappers as their value or null, Timestamp and Duration as their strings, repeated
/// fields as arrays, maps as objects, nested messages under `$defs` (so a message that holds
/// itself is a reference, not an endless schema). What a model host shows and checks a tool's
/// arguments against.
package struct JSONSchemaOfMessage {
  typealias FieldType = Google_Protobuf_FieldDescriptorProto.TypeEnum

  private let schema: ProtoSchema
  private var definitions: [(String, JSONValue)] = []
  private var defined: Set<String> = []

  /// The schema of `type`; `descriptions` by JSON name describe its own fields. Throws when the
  /// descriptors do not have a message it needs.
  package static func of(
    _ type: String, in schema: ProtoSchema, descriptions: [String: String] = [:]
  ) throws(ProtoJSONError) -> JSONValue {
    var builder = JSONSchemaOfMessage(schema: schema)
    let root = try builder.object(of: schema.message(type), descriptions: descriptions)
    guard var members = root.members else { return root }
    if !builder.definitions.isEmpty { members.append(("$defs", .object(builder.definitions))) }
    return .object(members)
  }

  private init(schema: ProtoSchema) {
    self.schema = schema
  }

  private mutating func object(
    of message: ProtoSchema.Message, descriptions: [String: String] = [:]
  ) throws(ProtoJSONError) -> JSONValue {
    var properties: [(String, JSONValue)] = []
    for field in message.fields {
      var property = try value(of: field)
      if let description = descriptions[field.jsonName], var members = property.members {
        members.append(("description", .string(description)))
        property = .object(members)
      }
      properties.append((field.jsonName, property))
    }
    return .object([
      ("type", .string("object")), ("properties", .object(properties)), ("additionalProperties", .bool(false)),
    ])
  }

  private mutating func value(of field: ProtoSchema.Field) throws(ProtoJSONError) -> JSONValue {
    if field.isRepeated, field.type == .message, let entry = schema.messages[field.typeName], entry.isMapEntry,
      let valueField = entry.field(number: 2)
    {
      return .object([("type", .string("object")), ("additionalProperties", try single(valueField))])
    }
    let one = try single(field)
    return field.isRepeated ? .object([("type", .string("array")), ("items", one)]) : one
  }

  private mutating func single(_ field: ProtoSchema.Field) throws(ProtoJSONError) -> JSONValue {
    switch field.type {
    case .enum:
      let names = schema.enums[field.typeName].map { $0.byName.sorted { $0.value < $1.value }.map(\.key) } ?? []
      return .object([("type", .string("string")), ("enum", .array(names.map(JSONValue.string)))])
    case .message, .group:
      return try message(field.typeName)
    default:
      return Self.scalar(field.type)
    }
  }

  private static func scalar(_ type: FieldType) -> JSONValue {
    switch type {
    case .bool: return .object([("type", .string("boolean"))])
    case .string: return .object([("type", .string("string"))])
    case .bytes: return .object([("type", .string("string")), ("contentEncoding", .string("base64"))])
    case .int32, .sint32, .sfixed32, .uint32, .fixed32: return .object([("type", .string("integer"))])
    case .int64, .sint64, .sfixed64, .uint64, .fixed64:
      // proto3 JSON writes 64-bit integers as strings and reads either.
      return .object([
        ("type", .array([.string("integer"), .string("string")])), ("pattern", .string("^-?[0-9]+$")),
      ])
    case .double, .float:
      return .object([("type", .array([.string("number"), .string("string")]))])
    default: return .object([])
    }
  }

  private mutating func message(_ type: String) throws(ProtoJSONError) -> JSONValue {
    if let wrapped = ProtoJSONCodec.wrappers[type] {
      var members = Self.scalar(wrapped).members ?? []
      if case .string(let single)? = members.first(where: { $0.0 == "type" })?.1 {
        members.removeAll { $0.0 == "type" }
        members.insert(("type", .array([.string(single), .string("null")])), at: 0)
      }
      return .object(members)
    }
    switch type {
    case "google.protobuf.Timestamp":
      return .object([("type", .string("string")), ("format", .string("date-time"))])
    case "google.protobuf.Duration":
      return .object([("type", .string("string")), ("pattern", .string("^-?[0-9]+(\\.[0-9]+)?s$"))])
    case "google.protobuf.Any":
      return .object([
        ("type", .string("object")), ("properties", .object([("@type", .object([("type", .string("string"))]))])),
        ("required", .array([.string("@type")])),
      ])
    case "google.protobuf.Empty":
      return .object([("type", .string("object")), ("additionalProperties", .bool(false))])
    case "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue":
      return .object([])
    default:
      break
    }
    if !defined.contains(type) {
      defined.insert(type)
      let index = definitions.count
      definitions.append((type, .null))
      definitions[index].1 = try object(of: schema.message(type))
    }
    return .object([("$ref", .string("#/$defs/\(type)"))])
  }
}
