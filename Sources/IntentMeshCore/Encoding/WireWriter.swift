internal import Foundation

/// Writes a message's bytes into a buffer of the size `WireSizer` counted, taking each nested
/// length from the sizer's record instead of sizing the nested message again. Each nested message
/// is checked to end where its recorded length says, and a write that would not fit is dropped:
/// either is remembered (`mismatched`), and the plan then refuses the result.
struct WireWriter {
  private let buffer: UnsafeMutableRawBufferPointer
  private let nestedSizes: [Int]
  private var nextNested = 0
  /// Bytes written so far.
  private(set) var offset = 0
  /// Whether a write did not fit, a nested message did not end where its length said, or a nested
  /// length was missing: the two passes differed.
  private(set) var mismatched = false

  init(into buffer: UnsafeMutableRawBufferPointer, nestedSizes: [Int]) {
    self.buffer = buffer
    self.nestedSizes = nestedSizes
  }

  /// A writer of nothing, for the sizing pass.
  static var none: Self { Self(into: UnsafeMutableRawBufferPointer(start: nil, count: 0), nestedSizes: []) }

  /// Whether every byte and every nested length was used: the writer saw what the sizer saw.
  var isComplete: Bool {
    !mismatched && offset == buffer.count && nextNested == nestedSizes.count
  }

  private mutating func room(for count: Int) -> UnsafeMutableRawPointer? {
    guard !mismatched, count <= buffer.count - offset, let base = buffer.baseAddress else {
      mismatched = true
      return nil
    }
    defer { offset += count }
    return base + offset
  }

  mutating func varint(_ value: UInt64) {
    // Tags and short lengths: one byte.
    if value < 0x80 {
      room(for: 1)?.storeBytes(of: UInt8(truncatingIfNeeded: value), as: UInt8.self)
      return
    }
    guard let pointer = room(for: Wire.varintSize(value)) else { return }
    var rest = value
    var index = 0
    while rest >= 0x80 {
      pointer.storeBytes(of: UInt8(truncatingIfNeeded: rest) | 0x80, toByteOffset: index, as: UInt8.self)
      rest >>= 7
      index += 1
    }
    pointer.storeBytes(of: UInt8(rest), toByteOffset: index, as: UInt8.self)
  }

  mutating func fixed32(_ value: UInt32) {
    room(for: 4)?.storeBytes(of: value.littleEndian, as: UInt32.self)
  }

  mutating func fixed64(_ value: UInt64) {
    room(for: 8)?.storeBytes(of: value.littleEndian, as: UInt64.self)
  }

  mutating func lengthDelimited(_ string: String) {
    let count = string.utf8.count
    varint(UInt64(count))
    guard count > 0, let pointer = room(for: count) else { return }
    let copied = string.utf8.withContiguousStorageIfAvailable { utf8 in
      pointer.copyMemory(from: utf8.baseAddress!, byteCount: utf8.count)
    }
    if copied == nil {
      for (index, byte) in string.utf8.enumerated() {
        pointer.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
      }
    }
  }

  mutating func lengthDelimited(_ data: Data) {
    varint(UInt64(data.count))
    raw(data)
  }

  mutating func raw(_ data: Data) {
    guard !data.isEmpty, let pointer = room(for: data.count) else { return }
    data.withUnsafeBytes { bytes in
      if let source = bytes.baseAddress { pointer.copyMemory(from: source, byteCount: bytes.count) }
    }
  }

  /// The offset where the nested message must end.
  mutating func beginNested() -> Int {
    guard nextNested < nestedSizes.count else {
      mismatched = true
      return offset
    }
    let size = nestedSizes[nextNested]
    nextNested += 1
    varint(UInt64(size))
    return offset + size
  }

  mutating func endNested(_ end: Int) {
    if offset != end { mismatched = true }
  }
}
