/// Reads protobuf's wire format from bytes; every read is bounds-checked.
struct WireReader {
  let bytes: [UInt8]
  var position = 0

  var atEnd: Bool { position >= bytes.count }

  /// The next field's number and wire type, or nil at the end.
  mutating func nextKey() throws(ProtoJSONError) -> (Int, Int)? {
    guard !atEnd else { return nil }
    let key = try varint()
    guard key >> 3 > 0, key >> 3 <= 536_870_911 else { throw ProtoJSONError("a field number out of range") }
    return (Int(key >> 3), Int(key & 7))
  }

  mutating func varint() throws(ProtoJSONError) -> UInt64 {
    var result: UInt64 = 0
    var shift: UInt64 = 0
    while true {
      guard position < bytes.count, shift < 64 else { throw ProtoJSONError("a truncated or malformed message") }
      let byte = bytes[position]
      position += 1
      result |= UInt64(byte & 0x7f) << shift
      if byte < 0x80 { return result }
      shift += 7
    }
  }

  mutating func fixed64() throws(ProtoJSONError) -> UInt64 {
    try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
  }

  mutating func fixed32() throws(ProtoJSONError) -> UInt32 {
    try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func lengthDelimited() throws(ProtoJSONError) -> [UInt8] {
    let length = try varint()
    guard length <= UInt64(bytes.count) else { throw ProtoJSONError("a truncated message") }
    return try take(Int(length))
  }

  mutating func take(_ count: Int) throws(ProtoJSONError) -> [UInt8] {
    guard count >= 0, count <= bytes.count - position else { throw ProtoJSONError("a truncated message") }
    defer { position += count }
    return Array(bytes[position..<position + count])
  }

  mutating func skip(_ wire: Int) throws(ProtoJSONError) {
    switch wire {
    case 0: _ = try varint()
    case 1: _ = try take(8)
    case 2: _ = try lengthDelimited()
    case 5: _ = try take(4)
    default: throw ProtoJSONError("wire type \(wire) is not supported")
    }
  }
}
