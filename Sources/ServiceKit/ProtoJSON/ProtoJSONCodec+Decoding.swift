internal import SwiftProtobuf

/// Binary → proto3 JSON.
extension ProtoJSONCodec {
  /// The proto3 JSON of `bytes`, a `type` message.
  package func decode(_ bytes: some Collection<UInt8>, as type: String) throws(ProtoJSONError) -> JSONValue {
    var reader = WireReader(bytes: Array(bytes))
    if let scalar = Self.wrappers[type] {
      var value = Self.zero(scalar)
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
      return .string(
        try type.hasSuffix("Timestamp")
          ? ProtoTime.timestampText(seconds: seconds, nanos: nanos)
          : ProtoTime.durationText(seconds: seconds, nanos: nanos))
    case "google.protobuf.Any":
      var (url, body): (String, [UInt8]) = ("", [])
      while let (number, wire) = try reader.nextKey() {
        switch number {
        case 1: url = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
        case 2: body = try reader.lengthDelimited()
        default: try reader.skip(wire)
        }
      }
      guard !url.isEmpty else { return .object([]) }
      let inner = Self.typeName(fromURL: url)
      let value = try decode(body, as: inner)
      let members = Self.isSpecial(inner) ? [("value", value)] : (value.members ?? [])
      return .object([("@type", .string(url))] + members)
    case _ where Self.unsupported.contains(type):
      throw ProtoJSONError("\(type) is not supported in JSON here")
    default:
      return try decodeMessage(&reader, try schema.message(type))
    }
  }

  private func decodeMessage(_ reader: inout WireReader, _ message: ProtoSchema.Message) throws(ProtoJSONError)
    -> JSONValue
  {
    // Members in field-number order, as protoc's printers write them; repeated fields gather.
    var members: [Int: (name: String, value: JSONValue)] = [:]
    while let (number, wire) = try reader.nextKey() {
      guard let field = message.field(number: number) else {
        try reader.skip(wire)
        continue
      }
      if field.isRepeated, let entry = schema.messages[field.typeName], entry.isMapEntry {
        guard let key = entry.field(number: 1), let item = entry.field(number: 2) else {
          throw ProtoJSONError("incomplete descriptor of \(entry.fullName)")
        }
        let pair = try decode(try reader.lengthDelimited(), as: entry.fullName)
        let name: String
        switch pair[key.jsonName] ?? Self.zero(key.type) {
        case .string(let text), .number(let text): name = text
        case .bool(let flag): name = flag ? "true" : "false"
        default: name = ""
        }
        var map = members[field.number]?.value.members ?? []
        map.removeAll { $0.0 == name }
        map.append((name, pair[item.jsonName] ?? Self.zero(item.type)))
        members[field.number] = (field.jsonName, .object(map))
      } else if field.isRepeated {
        var list: [JSONValue] = []
        if case .array(let earlier)? = members[field.number]?.value { list = earlier }
        if wire == 2, ProtoWire.isPackable(field.type) {
          var packed = WireReader(bytes: try reader.lengthDelimited())
          while !packed.atEnd {
            list.append(
              try readValue(field.type, typeName: field.typeName, wire: ProtoWire.wireType(field.type), from: &packed))
          }
        } else {
          list.append(try readValue(field.type, typeName: field.typeName, wire: wire, from: &reader))
        }
        members[field.number] = (field.jsonName, .array(list))
      } else {
        members[field.number] = (
          field.jsonName, try readValue(field.type, typeName: field.typeName, wire: wire, from: &reader)
        )
      }
    }
    return .object(members.sorted { $0.key < $1.key }.map { ($0.value.name, $0.value.value) })
  }

  private func readValue(_ type: FieldType, typeName: String, wire: Int, from reader: inout WireReader)
    throws(ProtoJSONError) -> JSONValue
  {
    guard wire == ProtoWire.wireType(type) else {
      throw ProtoJSONError("wire type \(wire) for a field of type \(type)")
    }
    switch type {
    case .message, .group: return try decode(try reader.lengthDelimited(), as: typeName)
    case .string: return .string(String(decoding: try reader.lengthDelimited(), as: UTF8.self))
    case .bytes: return .string(ProtoWire.base64Encoded(try reader.lengthDelimited()))
    case .double: return .double(Double(bitPattern: try reader.fixed64()))
    case .float: return .double(Double(Float(bitPattern: try reader.fixed32())))
    case .int64: return .string(String(Int64(bitPattern: try reader.varint())))
    case .uint64: return .string(String(try reader.varint()))
    case .fixed64: return .string(String(try reader.fixed64()))
    case .sfixed64: return .string(String(Int64(bitPattern: try reader.fixed64())))
    case .int32: return .integer(Int32(truncatingIfNeeded: Int64(bitPattern: try reader.varint())))
    case .uint32: return .integer(UInt32(truncatingIfNeeded: try reader.varint()))
    case .fixed32: return .integer(try reader.fixed32())
    case .sfixed32: return .integer(Int32(bitPattern: try reader.fixed32()))
    case .sint32, .sint64:
      let raw = try reader.varint()
      let number = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
      return type == .sint64 ? .string(String(number)) : .integer(Int32(truncatingIfNeeded: number))
    case .bool: return .bool(try reader.varint() != 0)
    case .enum:
      let number = Int32(truncatingIfNeeded: Int64(bitPattern: try reader.varint()))
      return schema.enums[typeName]?.byNumber[number].map(JSONValue.string) ?? .integer(number)
    default: throw ProtoJSONError("field type \(type) is not supported")
    }
  }

  /// A field's value when it is absent from the wire.
  static func zero(_ type: FieldType) -> JSONValue {
    switch type {
    case .bool: .bool(false)
    case .string, .bytes: .string("")
    case .int64, .uint64, .sint64, .fixed64, .sfixed64: .string("0")
    default: .number("0")
    }
  }
}
