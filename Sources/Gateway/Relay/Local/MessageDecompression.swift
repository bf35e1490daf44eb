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
    var output = ByteBuffer()
    var written: Int64 = -1
    message.withUnsafeReadableBytes { input in
      // One byte more than the limit: a message that fills it is over the limit.
      written = output.writeWithUnsafeMutableBytes(minimumWritableBytes: limit + 1) { target in
        let count = intentmesh_inflate(
          input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, self == .gzip ? 1 : 0,
          target.baseAddress?.assumingMemoryBound(to: UInt8.self), limit + 1)
        return count
      }
    }
    switch written {
    case -2: throw .tooLarge(limit: limit)
    case ..<0: throw .corrupt
    case Int64(limit + 1)...: throw .tooLarge(limit: limit)
    default: return output
    }
  }
}

extension ByteBuffer {
  /// Writes what `body` says it wrote (a negative count: nothing) and returns that count.
  fileprivate mutating func writeWithUnsafeMutableBytes(
    minimumWritableBytes: Int, _ body: (UnsafeMutableRawBufferPointer) -> Int64
  ) -> Int64 {
    var result: Int64 = -1
    writeWithUnsafeMutableBytes(minimumWritableBytes: minimumWritableBytes) { pointer in
      result = body(pointer)
      return result > 0 ? Int(result) : 0
    }
    return result
  }
}
