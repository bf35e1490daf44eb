internal import SwiftProtobuf

/// Binary → proto3 JSON.
extension ProtoJSONCodec {
  /// Messages nested deeper than this are refused (protobuf's own recursion limit): a payload of
  /// Anys in Anys must not exhaust the stack.
  static let maxDepth = 100

  /// The proto3 JSON of `bytes`, a `type` message.
  package func decode(_ bytes: some Collection<UInt8>, as type: String) throws(ProtoJSONError) -> JSONValue {
    try decode(Array(bytes), as: type, depth: 0)
  }

  private func decode(_ bytes: [UInt8], as type: String, depth: Int) throws(ProtoJSONError) -> JSONValue {
    guard depth < Self.maxDepth else { throw ProtoJSONError("messages nested deeper than \(Self.maxDepth)") }
    var reader = WireReader(bytes: bytes)
    if let scalar = Self.wrappers[type] {
      var value = Self.zero(scalar)
      while let (number, wire) = try reader.nextKey() {
        guard number == 1 else {
          try reader.skip(wire)
          continue
        }
        value = try readValue(scalar, typeName: "", wire: wire, from: &reader, depth: depth)
      }
      return value
    }
    switch type {
    case "google.protobuf.Timestamp", "google.protobuf.Duration":
      var (seconds, nanos): (Int64, Int32) = (0, 0)
      while let (number, wire) = try reader.nextKey() {
        switch (number, wire) {
        case (1, 0): seconds = Int64(bitPattern: try reader.varint())
        case (2, 0): nanos = Int32(truncatingIfNeeded: Int64(bitPattern: try reader.varint()))
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
        switch (number, wire) {
        case (1, 2): url = String(decoding: try reader.lengthDelimited(), as: UTF8.self)
        case (2, 2): body = try reader.lengthDelimited()
        default: try reader.skip(wire)
        }
      }
      guard !url.isEmpty else { return .object([]) }
      let inner = Self.typeName(fromURL: url)
      let value = try decode(body, as: inner, depth: depth + 1)
      let members = Self.isSpecial(inner) ? [("value", value)] : (value.members ?? [])
      return .object([("@type", .string(url))] + members)
    case _ where Self.unsupported.contains(type):
      throw ProtoJSONError("\(type) is not supported in JSON here")
    default:
      return try decodeMessage(&reader, try schema.message(type), depth: depth)
    }
  }

  private func decodeMessage(_ reader: inout WireReader, _ message: ProtoSchema.Message, depth: Int)
    throws(ProtoJSONError) -> JSONValue
  {
    // Each field gathered once (lists and maps appended in place), written in field-number order
    // as protoc's printers write them.
    var singles: [Int: JSONValue] = [:]
    var lists: [Int: [JSONValue]] = [:]
    var maps: [Int: (entries: [(String, JSONValue)], index: [String: Int])] = [:]
    while let (number, wire) = try reader.nextKey() {
      guard let field = message.field(number: number) else {
        try reader.skip(wire)
        continue
      }
      if field.isRepeated, let entry = schema.messages[field.typeName], entry.isMapEntry {
        guard wire == 2 else { throw ProtoJSONError("wire type \(wire) for the map \(field.jsonName)") }
        let (key, value) = try mapEntry(try reader.lengthDelimited(), entry, depth: depth)
        var map = maps[number] ?? ([], [:])
        if let position = map.index[key] {
          map.entries[position].1 = value  // the last entry of a key wins
        } else {
          map.index[key] = map.entries.count
          map.entries.append((key, value))
        }
        maps[number] = map
      } else if field.isRepeated {
        if wire == 2, ProtoWire.isPackable(field.type) {
          var packed = WireReader(bytes: try reader.lengthDelimited())
          while !packed.atEnd {
            lists[number, default: []].append(
              try readValue(
                field.type, typeName: field.typeName, wire: ProtoWire.wireType(field.type), from: &packed,
                depth: depth))
          }
        } else {
          lists[number, default: []].append(
            try readValue(field.type, typeName: field.typeName, wire: wire, from: &reader, depth: depth))
        }
      } else {
        singles[number] = try readValue(field.type, typeName: field.typeName, wire: wire, from: &reader, depth: depth)
      }
    }
    var members: [(String, JSONValue)] = []
    for field in message.fields.sorted(by: { $0.number < $1.number }) {
      if let value = singles[field.number] {
        members.append((field.jsonName, value))
      } else if let list = lists[field.number] {
        members.append((field.jsonName, .array(list)))
      } else if let map = maps[field.number] {
        members.append((field.jsonName, .object(map.entries)))
      }
    }
    return .object(members)
  }

  /// One map entry's key (as JSON writes keys) and value; an absent value is its type's default.
  private func mapEntry(_ bytes: [UInt8], _ entry: ProtoSchema.Message, depth: Int) throws(ProtoJSONError)
    -> (String, JSONValue)
  {
    guard let keyField = entry.field(number: 1), let valueField = entry.field(number: 2) else {
      throw ProtoJSONError("incomplete descriptor of \(entry.fullName)")
    }
    var reader = WireReader(bytes: bytes)
    var key: JSONValue?
    var value: JSONValue?
    while let (number, wire) = try reader.nextKey() {
      switch number {
      case 1: key = try readValue(keyField.type, typeName: keyField.typeName, wire: wire, from: &reader, depth: depth)
      case 2:
        value = try readValue(valueField.type, typeName: valueField.typeName, wire: wire, from: &reader, depth: depth)
      default: try reader.skip(wire)
      }
    }
    let name: String
    switch key ?? Self.zero(keyField.type) {
    case .string(let text), .number(let text): name = text
    case .bool(let flag): name = flag ? "true" : "false"
    default: name = ""
    }
    if let value { return (name, value) }
    return (name, try defaultValue(of: valueField, depth: depth))
  }

  /// The JSON of a field's default: a message's is that of its empty encoding, an enum's its first case.
  private func defaultValue(of field: ProtoSchema.Field, depth: Int) throws(ProtoJSONError) -> JSONValue {
    switch field.type {
    case .message, .group: return try decode([], as: field.typeName, depth: depth + 1)
    case .enum: return schema.enums[field.typeName]?.byNumber[0].map(JSONValue.string) ?? .number("0")
    default: return Self.zero(field.type)
    }
  }

  private func readValue(
    _ type: FieldType, typeName: String, wire: Int, from reader: inout WireReader, depth: Int
  ) throws(ProtoJSONError) -> JSONValue {
    guard wire == ProtoWire.wireType(type) else {
      throw ProtoJSONError("wire type \(wire) for a field of type \(type)")
    }
    switch type {
    case .message, .group: return try decode(try reader.lengthDelimited(), as: typeName, depth: depth + 1)
    case .string: return .string(String(decoding: try reader.lengthDelimited(), as: UTF8.self))
    case .bytes: return .string(ProtoWire.base64Encoded(try reader.lengthDelimited()))
    case .double: return .double(Double(bitPattern: try reader.fixed64()))
    case .float: return .float(Float(bitPattern: try reader.fixed32()))
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

  /// A scalar field's value when it is absent from the wire.
  static func zero(_ type: FieldType) -> JSONValue {
    switch type {
    case .bool: .bool(false)
    case .string, .bytes: .string("")
    case .int64, .uint64, .sint64, .fixed64, .sfixed64: .string("0")
    default: .number("0")
    }
  }

  /// The `google.protobuf.Any` details of a serialized `google.rpc.Status`, each as its type URL
  /// and value bytes, read without knowing the detail types (a detail the schema lacks is kept).
  package static func statusDetails(_ status: [UInt8]) -> [(typeURL: String, value: [UInt8])] {
    var reader = WireReader(bytes: status)
    var details: [(typeURL: String, value: [UInt8])] = []
    while let (number, wire) = try? reader.nextKey() {
      guard number == 3, wire == 2, let any = try? reader.lengthDelimited() else {
        guard (try? reader.skip(wire)) != nil else { break }
        continue
      }
      var inner = WireReader(bytes: any)
      var detail = (typeURL: "", value: [UInt8]())
      while let (field, kind) = try? inner.nextKey() {
        switch (field, kind) {
        case (1, 2): detail.typeURL = String(decoding: (try? inner.lengthDelimited()) ?? [], as: UTF8.self)
        case (2, 2): detail.value = (try? inner.lengthDelimited()) ?? []
        default: if (try? inner.skip(kind)) == nil { break }
        }
      }
      details.append(detail)
    }
    return details
  }
}
