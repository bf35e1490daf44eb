import Foundation

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
