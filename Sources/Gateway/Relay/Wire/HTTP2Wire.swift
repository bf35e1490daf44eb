internal import NIOCore

/// The parts of HTTP/2 (RFC 9113) the relay reads and writes itself: the connection preface,
/// frame headers, frame types and flags, error codes and settings.
enum HTTP2Wire {
  /// What a client sends before its first frame.
  static let clientPreface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

  /// Every frame starts with nine bytes: length (24 bits), type, flags, stream id (31 bits).
  static let frameHeaderLength = 9

  /// The window every stream and the connection start with, before any SETTINGS or WINDOW_UPDATE.
  static let defaultWindow = 65_535
  /// The largest frame a peer may send until it says otherwise.
  static let defaultMaxFrameSize = 16_384
  /// The largest window either side may grant.
  static let maxWindow = Int(Int32.max)

  enum FrameType: UInt8 {
    case data = 0
    case headers = 1
    case priority = 2
    case resetStream = 3
    case settings = 4
    case pushPromise = 5
    case ping = 6
    case goAway = 7
    case windowUpdate = 8
    case continuation = 9
  }

  enum Flag {
    static let endStream: UInt8 = 0x1
    static let ack: UInt8 = 0x1
    static let endHeaders: UInt8 = 0x4
    static let padded: UInt8 = 0x8
    static let priority: UInt8 = 0x20
  }

  enum ErrorCode: UInt32 {
    case noError = 0
    case protocolError = 1
    case internalError = 2
    case flowControlError = 3
    case streamClosed = 5
    case frameSizeError = 6
    case refusedStream = 7
    case cancel = 8
    case compressionError = 9
    case enhanceYourCalm = 0xB

    /// The code's name in RFC 9113 (for logs and metrics).
    var name: String { Self.name(rawValue) }

    /// The name of the error code `raw`, known or not.
    static func name(_ raw: UInt32) -> String {
      let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
      ]
      return raw < names.count ? names[Int(raw)] : "0x\(String(raw, radix: 16))"
    }
  }

  enum Setting: UInt16 {
    case headerTableSize = 1
    case enablePush = 2
    case maxConcurrentStreams = 3
    case initialWindowSize = 4
    case maxFrameSize = 5
    case maxHeaderListSize = 6
  }

  /// A frame's first nine bytes, decoded.
  struct FrameHeader {
    var length: Int
    var type: UInt8
    var flags: UInt8
    var streamID: UInt32

    func has(_ flag: UInt8) -> Bool { flags & flag != 0 }
  }

  /// The header of the frame at the start of `buffer`, if all nine bytes are there.
  static func peekFrameHeader(_ buffer: ByteBuffer) -> FrameHeader? {
    let at = buffer.readerIndex
    guard buffer.readableBytes >= frameHeaderLength,
      let high = buffer.getInteger(at: at, as: UInt8.self),
      let low = buffer.getInteger(at: at + 1, as: UInt16.self),
      let type = buffer.getInteger(at: at + 3, as: UInt8.self),
      let flags = buffer.getInteger(at: at + 4, as: UInt8.self),
      let stream = buffer.getInteger(at: at + 5, as: UInt32.self)
    else { return nil }
    return FrameHeader(
      length: Int(high) << 16 | Int(low), type: type, flags: flags, streamID: stream & 0x7FFF_FFFF)
  }
}

extension ByteBuffer {
  /// Appends a frame header.
  mutating func writeFrameHeader(length: Int, type: HTTP2Wire.FrameType, flags: UInt8 = 0, stream: UInt32) {
    writeInteger(UInt8(truncatingIfNeeded: length >> 16))
    writeInteger(UInt16(truncatingIfNeeded: length))
    writeInteger(type.rawValue)
    writeInteger(flags)
    writeInteger(stream & 0x7FFF_FFFF)
  }

  /// Appends a WINDOW_UPDATE frame.
  mutating func writeWindowUpdate(stream: UInt32, increment: Int) {
    writeFrameHeader(length: 4, type: .windowUpdate, stream: stream)
    writeInteger(UInt32(increment) & 0x7FFF_FFFF)
  }

  /// Appends a RST_STREAM frame.
  mutating func writeResetStream(stream: UInt32, code: HTTP2Wire.ErrorCode) {
    writeFrameHeader(length: 4, type: .resetStream, stream: stream)
    writeInteger(code.rawValue)
  }

  /// Appends a SETTINGS frame with `settings`.
  mutating func writeSettings(_ settings: [(HTTP2Wire.Setting, Int)]) {
    writeFrameHeader(length: 6 * settings.count, type: .settings, stream: 0)
    for (setting, value) in settings {
      writeInteger(setting.rawValue)
      writeInteger(UInt32(value))
    }
  }

  /// Appends a GOAWAY frame.
  mutating func writeGoAway(lastStream: UInt32, code: HTTP2Wire.ErrorCode, message: String) {
    let debug = Array(message.utf8.prefix(256))
    writeFrameHeader(length: 8 + debug.count, type: .goAway, stream: 0)
    writeInteger(lastStream & 0x7FFF_FFFF)
    writeInteger(code.rawValue)
    writeBytes(debug)
  }
}
