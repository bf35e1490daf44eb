internal import CZlib
internal import NIOCore

/// The request compressions gRPC names in `grpc-encoding` that the gateway's own server takes:
/// gzip (RFC 1952) and deflate (gRPC's "deflate" is zlib's format, RFC 1950). A message is
/// inflated whole, and never past the message limit: a small message that would grow past it (a
/// compression bomb) is refused once the limit is passed, without inflating the rest.
enum MessageDecompression: Equatable {
  case gzip
  case deflate

  /// The encoding a request's `grpc-encoding` names; nil for one not taken (identity is no
  /// compression: `isIdentity`).
  init?(encoding: String) {
    switch encoding {
    case "gzip": self = .gzip
    case "deflate": self = .deflate
    default: return nil
    }
  }

  /// Whether `encoding` is no compression at all.
  static func isIdentity(_ encoding: String?) -> Bool {
    encoding == nil || encoding == "identity"
  }

  /// What a compressed message may fail with.
  enum Failure: Error, Equatable {
    /// Inflated, it would be larger than `limit`.
    case tooLarge(limit: Int)
    /// The bytes are not a whole stream of the encoding.
    case corrupt
  }

  /// `message` inflated; at most `limit` bytes.
  func inflate(_ message: ByteBuffer, limit: Int) throws(Failure) -> ByteBuffer {
    var stream = z_stream()
    // 15: the largest window; +16: gzip's header and trailer instead of zlib's.
    let windowBits: Int32 = self == .gzip ? 15 + 16 : 15
    guard czlib_inflate_init(&stream, windowBits) == Z_OK else { throw .corrupt }
    defer { inflateEnd(&stream) }
    var output = ByteBuffer()
    var input = Array(message.readableBytesView)
    let outcome: Failure? = input.withUnsafeMutableBufferPointer { source in
      stream.next_in = source.baseAddress
      stream.avail_in = UInt32(source.count)
      while true {
        let code = output.writeWithUnsafeMutableBytes(minimumWritableBytes: 16_384) { target in
          stream.next_out = target.baseAddress?.assumingMemoryBound(to: Bytef.self)
          stream.avail_out = UInt32(target.count)
          let before = stream.avail_out
          let code = CZlib.inflate(&stream, Z_NO_FLUSH)
          return (code, Int(before - stream.avail_out))
        }
        if output.readableBytes > limit { return .tooLarge(limit: limit) }
        switch code {
        case Z_STREAM_END: return stream.avail_in == 0 ? nil : .corrupt
        case Z_OK: continue
        // Z_BUF_ERROR: no progress possible, the input ended before the stream did.
        default: return .corrupt
        }
      }
    }
    if let outcome { throw outcome }
    return output
  }
}

extension ByteBuffer {
  /// Writes with the closure, which returns a value and how many bytes it wrote.
  fileprivate mutating func writeWithUnsafeMutableBytes<Result>(
    minimumWritableBytes: Int, _ body: (UnsafeMutableRawBufferPointer) -> (Result, Int)
  ) -> Result {
    var result: Result?
    writeWithUnsafeMutableBytes(minimumWritableBytes: minimumWritableBytes) { pointer in
      let (value, written) = body(pointer)
      result = value
      return written
    }
    return result!
  }
}
