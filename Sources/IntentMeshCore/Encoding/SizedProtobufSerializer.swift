package import GRPCCore
package import SwiftProtobuf

/// `GRPCProtobuf.ProtobufSerializer` with each nested message sized once (`encodedBytes()`): for
/// answers that nest messages deeply, like the intent calls' interactions. Same bytes on the wire.
package struct SizedProtobufSerializer<Message: SwiftProtobuf.Message>: GRPCCore.MessageSerializer {
  package init() {}

  package func serialize<Bytes: GRPCContiguousBytes>(_ message: Message) throws -> Bytes {
    do {
      let encoded: TransportBytes<Bytes> = try message.encodedBytes()
      return encoded.bytes
    } catch {
      throw RPCError(
        code: .invalidArgument, message: "Can't serialize message of type \(type(of: message)).", cause: error)
    }
  }
}

/// The transport's bytes as SwiftProtobuf's encoder takes them.
private struct TransportBytes<Bytes: GRPCContiguousBytes>: SwiftProtobufContiguousBytes {
  var bytes: Bytes

  init(repeating byte: UInt8, count: Int) {
    bytes = Bytes(repeating: byte, count: count)
  }

  init<S: Sequence>(_ sequence: S) where S.Element == UInt8 {
    bytes = Bytes(sequence)
  }

  var count: Int { bytes.count }

  func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
    try bytes.withUnsafeBytes(body)
  }

  mutating func withUnsafeMutableBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
    try bytes.withUnsafeMutableBytes(body)
  }
}
