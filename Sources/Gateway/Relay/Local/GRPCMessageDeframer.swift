internal import NIOCore
internal import ServiceKit

/// Splits a gRPC request body into its length-prefixed messages as its DATA arrives: a flags byte
/// (bit 0: compressed), a 4-byte big-endian length, the message. A pure value, fed DATA frame by
/// frame, tested without a stream around it (`GRPCMessageDeframerTests`).
///
/// A message is held until it is whole; one whose prefix promises more than `messageLimit` bytes
/// is refused from its prefix, before its body arrives (the body's bytes are never held).
struct GRPCMessageDeframer {
  /// One whole message of the request.
  struct Message: Equatable {
    /// The compressed flag of its prefix: the bytes are in the call's `grpc-encoding`.
    var compressed: Bool
    var bytes: ByteBuffer
    /// What it took on the wire, prefix included: what the client is granted back once it is read.
    var wireBytes: Int
  }

  /// A message whose prefix promises more than the limit.
  struct Oversized: Error, Equatable {
    var length: Int
    var limit: Int
  }

  /// The size of a message's prefix.
  static let prefixBytes = 5

  let messageLimit: Int
  /// The bytes of the message not yet whole (its prefix included).
  private var pending = ByteBuffer()

  init(messageLimit: Int) {
    self.messageLimit = messageLimit
  }

  /// Takes the next bytes of the body; returns the messages they complete, in order.
  mutating func append(_ data: ByteBuffer) throws(Oversized) -> [Message] {
    var data = data
    if pending.readableBytes == 0 {
      pending = data
    } else {
      pending.writeBuffer(&data)
    }
    var messages: [Message] = []
    while let prefix = pending.getBytes(at: pending.readerIndex, length: Self.prefixBytes) {
      let length = prefix[1...4].reduce(0) { $0 << 8 | Int($1) }
      guard length <= messageLimit else { throw Oversized(length: length, limit: messageLimit) }
      guard pending.readableBytes >= Self.prefixBytes + length else { break }
      pending.moveReaderIndex(forwardBy: Self.prefixBytes)
      let bytes = pending.readSlice(length: length)!
      messages.append(Message(compressed: prefix[0] & 1 == 1, bytes: bytes, wireBytes: Self.prefixBytes + length))
    }
    if pending.readableBytes == 0 { pending = ByteBuffer() }
    return messages
  }

  /// How the last message was cut short when the body ended here; nil when it ended between messages.
  var incompleteMessage: IncompleteRequestMessage? {
    let held = pending.readableBytes
    guard held > 0 else { return nil }
    guard held >= Self.prefixBytes, let prefix = pending.getBytes(at: pending.readerIndex, length: Self.prefixBytes)
    else { return .prefix(received: held) }
    let length = prefix[1...4].reduce(0) { $0 << 8 | Int($1) }
    return .body(received: held - Self.prefixBytes, length: length)
  }
}
