internal import GRPCCore
internal import NIOCore

/// The bytes of a message on the gateway's own server in process (`LocalServerTransport`): the
/// relay's buffers themselves, neither copied in nor out.
struct LocalCallBytes: GRPCContiguousBytes, Sendable {
  var buffer: ByteBuffer

  init(_ buffer: ByteBuffer) {
    self.buffer = buffer
  }

  init(repeating value: UInt8, count: Int) {
    buffer = ByteBuffer(repeating: value, count: count)
  }

  init(_ sequence: some Sequence<UInt8>) {
    buffer = ByteBuffer(bytes: sequence)
  }

  var count: Int { buffer.readableBytes }

  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try buffer.withUnsafeReadableBytes(body)
  }

  mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
    try buffer.withUnsafeMutableReadableBytes(body)
  }
}
