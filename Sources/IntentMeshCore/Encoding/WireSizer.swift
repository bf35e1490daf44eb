internal import Foundation

/// Counts a message's bytes and records the length of every nested message and map entry in the
/// order they are visited: the one sizing pass of `BinaryEncodingPlan`.
struct WireSizer {
  /// Bytes of the message (or nested message) being counted.
  private(set) var size = 0
  /// Each nested length, in visiting order.
  private(set) var nestedSizes: [Int] = []

  /// Room for `nestedCapacity` nested lengths before the record grows.
  init(nestedCapacity: Int = 0) {
    nestedSizes.reserveCapacity(nestedCapacity)
  }

  mutating func varint(_ value: UInt64) {
    size += Wire.varintSize(value)
  }

  mutating func fixed32(_ value: UInt32) {
    size += 4
  }

  mutating func fixed64(_ value: UInt64) {
    size += 8
  }

  mutating func lengthDelimited(_ string: String) {
    let count = string.utf8.count
    size += Wire.varintSize(UInt64(count)) + count
  }

  mutating func lengthDelimited(_ data: Data) {
    size += Wire.varintSize(UInt64(data.count)) + data.count
  }

  mutating func raw(_ data: Data) {
    size += data.count
  }

  /// Starts a nested length: its slot, which holds the size counted outside it until `endNested`.
  mutating func beginNested() -> Int {
    nestedSizes.append(size)
    size = 0
    return nestedSizes.count - 1
  }

  mutating func endNested(_ slot: Int) {
    let inner = size
    size = nestedSizes[slot] + Wire.varintSize(UInt64(inner)) + inner
    nestedSizes[slot] = inner
  }
}
