/// The text of a random (version 4) UUID, "8-4-4-4-12" lowercase hex, from 128 random bits.
package enum UUIDText {

  /// The UUID whose bits are `high` then `low`, with the version (4, in the 13th hex digit) and the
  /// RFC 4122 variant (in the 17th) set over them; e.g. "3f2b8c1e-9a4d-4c7e-b5a1-0d6e2f4a8b9c".
  package static func version4(high: UInt64, low: UInt64) -> String {
    let versioned = (high & ~0xF000) | 0x4000
    let varied = (low & ~(0xC000 << 48)) | (0x8000 << 48)
    return String(unsafeUninitializedCapacity: 36) { buffer in
      var position = 0
      func put(_ value: UInt64, digits: Int) {
        for shift in stride(from: (digits - 1) * 4, through: 0, by: -4) {
          // A lowercase hex digit by arithmetic: no table to load and index for each of the 32.
          let digit = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0xF
          buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
          position += 1
        }
      }
      func dash() {
        buffer[position] = UInt8(ascii: "-")
        position += 1
      }
      put(versioned >> 32, digits: 8)
      dash()
      put((versioned >> 16) & 0xFFFF, digits: 4)
      dash()
      put(versioned & 0xFFFF, digits: 4)
      dash()
      put(varied >> 48, digits: 4)
      dash()
      put(varied & 0xFFFF_FFFF_FFFF, digits: 12)
      return position
    }
  }
}
