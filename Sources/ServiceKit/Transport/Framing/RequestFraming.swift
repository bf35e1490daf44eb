internal import NIOCore

/// Where a request's gRPC framing stands after the bytes received so far: between messages, inside a
/// message's 5-byte prefix, or inside a message's body. A pure value, fed DATA frame by frame and
/// asked at END_STREAM whether the last message was cut short — tested without a stream around it.
///
/// It only counts: the bytes of a message are skipped, never copied. Given a limit, it also notes the
/// first uncompressed message whose prefix promises more bytes than the limit, before its body
/// arrives.
struct RequestFraming: Sendable, Equatable {
  enum Position: Sendable, Equatable {
    /// At a message boundary (or before the first message).
    case betweenMessages
    /// Inside a prefix (1 flag byte, 4 length bytes): the prefix bytes received so far (1–4).
    case inPrefix([UInt8])
    /// Inside a message of `length` bytes, `remaining` of them still to come.
    case inMessage(length: Int, remaining: Int)
  }

  /// The size of a gRPC message's prefix: the compressed flag and a big-endian 32-bit length.
  static let prefixBytes = 5

  private(set) var position: Position = .betweenMessages
  /// The most bytes an uncompressed message may have; nil: any.
  let messageLimit: Int?
  /// The length of the first uncompressed message over `messageLimit`, once its prefix is read.
  private(set) var oversizedMessage: Int?

  init(messageLimit: Int? = nil) {
    self.messageLimit = messageLimit
  }

  /// Takes the next bytes of the request's body.
  mutating func consume(_ buffer: ByteBuffer) {
    var buffer = buffer
    while buffer.readableBytes > 0 {
      switch position {
      case .betweenMessages:
        position = .inPrefix([])
      case .inPrefix(var received):
        let take = min(Self.prefixBytes - received.count, buffer.readableBytes)
        received += buffer.readBytes(length: take) ?? []
        guard received.count == Self.prefixBytes else {
          position = .inPrefix(received)
          continue
        }
        position = Self.afterPrefix(received)
        if oversizedMessage == nil, received[0] == 0, let messageLimit, case .inMessage(let length, _) = position,
          length > messageLimit
        {
          oversizedMessage = length
        }
      case .inMessage(let length, let remaining):
        let take = min(remaining, buffer.readableBytes)
        buffer.moveReaderIndex(forwardBy: take)
        position = take == remaining ? .betweenMessages : .inMessage(length: length, remaining: remaining - take)
      }
    }
  }

  /// The last message's shortfall when the request ended here; nil when it ended at a boundary.
  var incompleteMessage: IncompleteRequestMessage? {
    switch position {
    case .betweenMessages: nil
    case .inPrefix(let received): .prefix(received: received.count)
    case .inMessage(let length, let remaining): .body(received: length - remaining, length: length)
    }
  }

  private static func afterPrefix(_ prefix: [UInt8]) -> Position {
    let length = prefix[1...4].reduce(0) { $0 << 8 | Int($1) }
    return length == 0 ? .betweenMessages : .inMessage(length: length, remaining: length)
  }
}

/// A request message cut short by END_STREAM, and how the status names it.
package enum IncompleteRequestMessage: Sendable, Equatable {
  /// The request ended `received` bytes into a message's 5-byte prefix.
  case prefix(received: Int)
  /// The request ended `received` bytes into a message whose prefix promised `length` bytes.
  case body(received: Int, length: Int)

  /// The status message (plain ASCII, so it needs no percent-encoding in `grpc-message`).
  package var statusMessage: String {
    switch self {
    case .prefix(let received):
      "Incomplete request message: the request ended \(received) of \(RequestFraming.prefixBytes) bytes into a "
        + "message's length prefix"
    case .body(let received, let length):
      "Incomplete request message: the request ended \(received) bytes into a message whose prefix promised "
        + "\(length) bytes"
    }
  }
}
