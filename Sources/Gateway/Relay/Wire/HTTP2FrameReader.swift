internal import NIOCore

/// Cuts the bytes a peer sends into HTTP/2 frames: the client preface (when reading a client),
/// frame headers, the padding of DATA and HEADERS, a HEADERS frame's priority fields, and header
/// blocks spread over CONTINUATION frames, which come out as one HEADERS frame. A DATA frame keeps
/// its header's length (flow control counts the padding); its payload is the data alone. A header
/// block is bounded in bytes and in CONTINUATION frames: past either the connection ends.
struct HTTP2FrameReader {
  /// Why reading stops.
  enum Failure: Error {
    /// The peer does not speak HTTP/2 with prior knowledge.
    case notHTTP2
    /// A connection error: GOAWAY with `code`.
    case connection(HTTP2Wire.ErrorCode, String)
  }

  private var awaitingPreface: Bool
  private var unread: ByteBuffer?
  /// A header block still waiting for its CONTINUATION frames, and how many it has had.
  private var partialHeaders: (header: HTTP2Wire.FrameHeader, block: ByteBuffer, continuations: Int)?
  private let maxHeaderBlockBytes: Int
  private let maxContinuationFrames: Int

  init(expectingPreface: Bool, maxHeaderBlockBytes: Int = 1 << 16, maxContinuationFrames: Int = 8) {
    awaitingPreface = expectingPreface
    self.maxHeaderBlockBytes = maxHeaderBlockBytes
    self.maxContinuationFrames = maxContinuationFrames
  }

  /// Takes bytes read from the connection. The part of an earlier read not yet cut into frames is
  /// joined to them in new storage of its own: appended in place, it would copy the whole earlier
  /// buffer (its consumed bytes too) whenever frames handed out still share it, and each such copy
  /// would live as long as those frames.
  mutating func append(_ bytes: ByteBuffer) {
    guard var rest = unread.take() else {
      unread = bytes
      return
    }
    var joined = ByteBufferAllocator().buffer(capacity: rest.readableBytes + bytes.readableBytes)
    joined.writeBuffer(&rest)
    joined.writeImmutableBuffer(bytes)
    unread = joined
  }

  /// The next whole frame, or nil until more bytes come.
  mutating func next() throws(Failure) -> (HTTP2Wire.FrameHeader, ByteBuffer)? {
    guard var bytes = unread.take() else { return nil }
    defer { if bytes.readableBytes > 0 { unread = bytes } }
    if awaitingPreface {
      let preface = HTTP2Wire.clientPreface
      guard bytes.readableBytes >= preface.count else {
        guard bytes.readableBytesView.elementsEqual(preface.prefix(bytes.readableBytes)) else { throw .notHTTP2 }
        return nil
      }
      guard bytes.readBytes(length: preface.count) == preface else { throw .notHTTP2 }
      awaitingPreface = false
    }
    while let header = HTTP2Wire.peekFrameHeader(bytes) {
      guard header.length <= RelaySettings.maxFrameSize else {
        throw .connection(.frameSizeError, "a frame of \(header.length) bytes is larger than SETTINGS_MAX_FRAME_SIZE")
      }
      guard bytes.readableBytes >= HTTP2Wire.frameHeaderLength + header.length else { return nil }
      bytes.moveReaderIndex(forwardBy: HTTP2Wire.frameHeaderLength)
      if let frame = try frame(header, bytes.readSlice(length: header.length)!) { return frame }
    }
    return nil
  }

  /// `header` and `payload` as the connection takes them; nil while a header block is incomplete.
  private mutating func frame(
    _ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer
  ) throws(Failure) -> (HTTP2Wire.FrameHeader, ByteBuffer)? {
    let continuation = header.type == HTTP2Wire.FrameType.continuation.rawValue
    if let partial = partialHeaders, !continuation || header.streamID != partial.header.streamID {
      throw .connection(.protocolError, "a header block was interrupted by another frame")
    }
    var payload = payload
    switch HTTP2Wire.FrameType(rawValue: header.type) {
    case .data:
      if header.has(HTTP2Wire.Flag.padded) { payload = try Self.unpadded(payload, frame: "DATA") }
      return (header, payload)
    case .headers:
      if header.has(HTTP2Wire.Flag.padded) { payload = try Self.unpadded(payload, frame: "HEADERS") }
      if header.has(HTTP2Wire.Flag.priority) {
        guard payload.readableBytes >= 5 else { throw .connection(.frameSizeError, "HEADERS too short") }
        payload.moveReaderIndex(forwardBy: 5)
      }
      guard header.has(HTTP2Wire.Flag.endHeaders) else {
        partialHeaders = (header, payload, 0)
        return nil
      }
      return (header, payload)
    case .continuation:
      guard var partial = partialHeaders.take() else {
        throw .connection(.protocolError, "CONTINUATION without a header block")
      }
      partial.continuations += 1
      guard partial.continuations <= maxContinuationFrames else {
        throw .connection(
          .enhanceYourCalm, "a header block of more than \(maxContinuationFrames) CONTINUATION frames")
      }
      partial.block.writeBuffer(&payload)
      guard partial.block.readableBytes <= maxHeaderBlockBytes else {
        throw .connection(.enhanceYourCalm, "a header block larger than \(maxHeaderBlockBytes) bytes")
      }
      guard header.has(HTTP2Wire.Flag.endHeaders) else {
        partialHeaders = partial
        return nil
      }
      return (partial.header, partial.block)
    default:
      return (header, payload)
    }
  }

  /// `payload` without its pad-length byte and padding.
  private static func unpadded(_ payload: ByteBuffer, frame: String) throws(Failure) -> ByteBuffer {
    var payload = payload
    guard let padding = payload.readInteger(as: UInt8.self), Int(padding) <= payload.readableBytes else {
      throw .connection(.protocolError, "\(frame) padding longer than the frame")
    }
    return payload.getSlice(at: payload.readerIndex, length: payload.readableBytes - Int(padding))!
  }
}
