import Foundation
import SwiftProtobuf

extension ProtoJSONCodec {
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
}
