/// Protobuf's wire arithmetic.
package enum Wire {
  enum Format: UInt64 {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
  }

  static func tag(_ fieldNumber: Int, _ format: Format) -> UInt64 {
    UInt64(truncatingIfNeeded: fieldNumber) << 3 | format.rawValue
  }

  /// Bytes of `value` as a varint: 1 per 7 significant bits.
  static func varintSize(_ value: UInt64) -> Int {
    (64 - (value | 1).leadingZeroBitCount + 6) / 7
  }

  /// A `sint32`/`sint64` value as its varint: small magnitudes, either sign, in few bytes.
  package static func zigZag(_ value: Int64) -> UInt64 {
    UInt64(bitPattern: (value << 1) ^ (value >> 63))
  }

  /// An `int32`, `int64` or enum value: sign-extended to 64 bits (a negative one takes 10 bytes).
  static func signExtended(_ value: some BinaryInteger) -> UInt64 {
    UInt64(bitPattern: Int64(truncatingIfNeeded: value))
  }
}
