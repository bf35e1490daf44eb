internal import NIOCore
internal import NIOHPACK

/// One HTTP/2 connection of the relay, spoken by the relay itself (RFC 9113), with nothing
/// between the socket and the relayed calls: frames are parsed from the bytes read, header blocks
/// decoded and encoded with HPACK, DATA passed on as it comes. As `.server` it is a client's
/// connection to the gateway, and every stream the client opens starts a `RelayedCall`; as
/// `.client` it is a pooled connection to an upstream, and calls open streams on it.
///
/// Flow control is end to end: the relay grants a peer more window on a stream only when the
/// bytes it sent have left on the other side of the call, so a call holds at most one window of
/// data. Frames are gathered into one buffer and written once per event-loop tick. What a peer
/// may make it hold or do is bounded by `RelayLimits` (`RelayConnection+Defences`). Used only on
/// its event loop.
final class RelayConnection: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  enum Role {
    /// A client's connection to the gateway.
    case server
    /// The gateway's connection to an upstream.
    case client
  }

  let role: Role
  let state: RelayLoopState
  var context: ChannelHandlerContext?
  var active = false
  var closed = false
  var closeWhenFlushed = false
  var flushScheduled = false
  var reader: HTTP2FrameReader
  var output: ByteBuffer
  var decoder: HPACKDecoder
  var encoder: HPACKEncoder
  var headerScratch: ByteBuffer
  var streams: [UInt32: RelayStream] = [:]
  /// Streams whose DATA waits for the connection's send window or for the socket to drain.
  var blocked: [RelayStream] = []
  /// Streams opened by calls whose HEADERS go out at the next flush (client role): a stream reset
  /// before then never reaches the upstream.
  var unannounced: [RelayStream] = []

  var peerInitialWindow = HTTP2Wire.defaultWindow
  var peerMaxFrameSize = HTTP2Wire.defaultMaxFrameSize
  /// How many streams the peer lets the relay open (client role).
  var peerMaxStreams: Int
  /// The largest header list the peer takes (its SETTINGS_MAX_HEADER_LIST_SIZE; client role).
  var peerMaxHeaderListSize = Int.max
  var sendWindow = HTTP2Wire.defaultWindow
  var receiveWindow = RelaySettings.connectionWindow
  var creditPending = 0
  var lastPeerStream: UInt32 = 0
  var nextLocalStream: UInt32 = 1
  /// No new streams: GOAWAY sent or received, or the connection is gone.
  var goingAway = false
  /// Called once when the connection takes no new streams.
  var onRetire: ((RelayConnection) -> Void)?
  /// What the peer may still do before the relay calls it abuse.
  var defences: ConnectionDefences

  init(role: Role, state: RelayLoopState) {
    self.role = role
    self.state = state
    let limits = state.limits
    let allocator = ByteBufferAllocator()
    reader = HTTP2FrameReader(
      expectingPreface: role == .server, maxHeaderBlockBytes: 4 * limits.maxHeaderListSize,
      maxContinuationFrames: limits.maxContinuationFrames)
    peerMaxStreams = role == .client ? 100 : 0
    // The dynamic table stays at HPACK's default 4096 bytes (the relay advertises no other);
    // a header block may decode to at most four times the advertised list size.
    decoder = HPACKDecoder(
      allocator: allocator, maxDynamicTableSize: HPACKDecoder.maxDynamicTableSize,
      maxHeaderListSize: 4 * limits.maxHeaderListSize)
    // Literal strings are sent as they are: Huffman coding saves a few bytes per header and costs
    // the most CPU of any step of a relayed call's HPACK work.
    encoder = HPACKEncoder(allocator: allocator, useHuffmanEncoding: false)
    headerScratch = allocator.buffer(capacity: 256)
    output = allocator.buffer(capacity: 1024)
    defences = ConnectionDefences(limits: limits, now: state.now, openedAt: state.timers.now)
    if role == .client { output.writeBytes(HTTP2Wire.clientPreface) }
    var settings: [(HTTP2Wire.Setting, Int)] = [
      (.initialWindowSize, RelaySettings.initialWindowSize),
      (.maxHeaderListSize, role == .server ? limits.maxHeaderListSize : 4 * limits.maxHeaderListSize),
    ]
    switch role {
    case .server: settings.append((.maxConcurrentStreams, limits.maxConcurrentStreams))
    case .client: settings.append((.enablePush, 0))
    }
    output.writeSettings(settings)
    output.writeWindowUpdate(stream: 0, increment: RelaySettings.connectionWindow - HTTP2Wire.defaultWindow)
  }

  /// Whether a call may open a stream here now (client role).
  var hasRoom: Bool {
    !goingAway && streams.count < peerMaxStreams && nextLocalStream < 0x7FFF_FF00
  }

  // MARK: The channel

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    if role == .server {
      state.timers.add(self)
      // The timers' clock is fresh now (it may have stood still while the loop had no connection).
      defences.openedAt = state.timers.now
      defences.idleSince = state.timers.now
    }
    if context.channel.isActive { becameActive() }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    self.context = nil
    state.timers.remove(self)
  }

  func channelActive(context: ChannelHandlerContext) {
    becameActive()
    context.fireChannelActive()
  }

  private func becameActive() {
    guard !active else { return }
    active = true
    flushSoon()
  }

  func channelInactive(context: ChannelHandlerContext) {
    lost()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }

  /// The channel asks for more bytes from the peer: passed on unless reading is paused (a peer
  /// that leaves the relay's output unread), in which case it waits until the socket drains.
  func read(context: ChannelHandlerContext) {
    if defences.readingPaused {
      defences.readPending = true
    } else {
      context.read()
    }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    writabilityChanged(writable: context.channel.isWritable)
    context.fireChannelWritabilityChanged()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent {
      // Graceful shutdown: streams already open finish, then the connection closes.
      goAway(code: .noError, message: "the gateway is shutting down")
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  /// Sends GOAWAY with `code`; streams already open finish, then the connection closes.
  func goAway(code: HTTP2Wire.ErrorCode, message: String) {
    guard !goingAway, !closed else { return }
    output.writeGoAway(lastStream: lastPeerStream, code: code, message: message)
    retire()
    closeWhenIdle()
    flushSoon()
  }

  /// The connection is gone (or never came up): every stream on it ends.
  func lost() {
    guard !closed else { return }
    closed = true
    state.timers.remove(self)
    retire()
    let ended = streams.values
    streams = [:]
    blocked = []
    unannounced = []
    for stream in ended {
      let call = stream.call
      stream.call = nil
      call?.streamReset(stream, on: self)
    }
  }

  func retire() {
    guard !goingAway else { return }
    goingAway = true
    onRetire?(self)
    onRetire = nil
  }

  // MARK: Reading

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    reader.append(unwrapInboundIn(data))
    do {
      while !closed, let (header, payload) = try reader.next() { receive(header, payload) }
    } catch HTTP2FrameReader.Failure.connection(let code, let message) {
      connectionError(code, message)
    } catch {
      context.close(promise: nil)  // not HTTP/2 with prior knowledge
    }
  }

  /// One frame, whole: padding removed, a header block with its CONTINUATION frames joined.
  private func receive(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    switch HTTP2Wire.FrameType(rawValue: header.type) {
    case .data: receiveData(header, payload)
    case .headers: receiveHeaders(header, payload)
    case .resetStream: receiveResetStream(header, payload)
    case .settings: receiveSettings(header, payload)
    case .ping: receivePing(header, payload)
    case .goAway: receiveGoAway(header, payload)
    case .windowUpdate: receiveWindowUpdate(header, payload)
    case .priority:
      if header.streamID == 0 || header.length != 5 {
        return connectionError(.protocolError, "malformed PRIORITY frame")
      }
      controlFrame("PRIORITY")
    case .pushPromise: connectionError(.protocolError, "PUSH_PROMISE is not allowed here")
    case .continuation, nil: break  // continuations come joined to their HEADERS; unknown types are ignored
    }
  }

  /// Whether `id` names a stream that was never opened (as opposed to one already closed).
  private func isIdle(_ id: UInt32) -> Bool {
    switch role {
    case .server: id > lastPeerStream
    case .client: id >= nextLocalStream || id % 2 == 0
    }
  }

  private func receiveData(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.streamID != 0 else { return connectionError(.protocolError, "DATA on stream 0") }
    receiveWindow -= header.length
    guard receiveWindow >= 0 else { return connectionError(.flowControlError, "DATA beyond the connection window") }
    let end = header.has(HTTP2Wire.Flag.endStream)
    if header.length == 0 && !end { glitch("an empty DATA frame") }
    guard let stream = streams[header.streamID], !stream.remoteEnded else {
      creditConnection(header.length)  // nobody takes these bytes
      if isIdle(header.streamID) {
        connectionError(.protocolError, "DATA on stream \(header.streamID), which is not open")
      } else if let stream = streams[header.streamID] {
        resetStream(stream, code: .streamClosed)
      }
      return
    }
    stream.receiveWindow -= header.length
    guard stream.receiveWindow >= 0 else { return resetStream(stream, code: .flowControlError) }
    let padding = header.length - payload.readableBytes
    if padding > 0 { credit(stream, padding) }
    if end { stream.remoteEnded = true }
    if let call = stream.call {
      call.received(data: payload, endStream: end, on: stream, from: self)
    } else {
      credit(stream, payload.readableBytes)
    }
    closeIfDone(stream)
  }

  private func receiveHeaders(_ header: HTTP2Wire.FrameHeader, _ block: ByteBuffer) {
    guard header.streamID != 0 else { return connectionError(.protocolError, "HEADERS on stream 0") }
    headerBlockComplete(stream: header.streamID, flags: header.flags, block: block)
  }

  private func headerBlockComplete(stream id: UInt32, flags: UInt8, block: ByteBuffer) {
    var block = block
    let headers: HPACKHeaders
    do {
      headers = try decoder.decodeHeaders(from: &block)
    } catch {
      return connectionError(.compressionError, "a header block does not decode or is too large")
    }
    let end = flags & HTTP2Wire.Flag.endStream != 0
    if let stream = streams[id] {
      guard !stream.remoteEnded else { return resetStream(stream, code: .streamClosed) }
      if role == .server, let violation = HeaderListCheck.trailers(headers) {
        state.events.record("malformed_request", code: "PROTOCOL_ERROR", detail: "\(violation)")
        return resetStream(stream, code: .protocolError)
      }
      if end { stream.remoteEnded = true }
      stream.call?.received(headers: headers, endStream: end, on: stream, from: self)
      closeIfDone(stream)
      return
    }
    guard role == .server, id > lastPeerStream else {
      if isIdle(id) { connectionError(.protocolError, "HEADERS on stream \(id), which the peer may not open") }
      glitch("HEADERS on a closed stream")
      return  // a stream already closed: its header block kept the HPACK state in step, nothing more
    }
    guard id % 2 == 1 else { return connectionError(.protocolError, "a client opened even stream \(id)") }
    lastPeerStream = id
    guard !goingAway, streams.count < state.limits.maxConcurrentStreams else {
      refuse(stream: id, code: .refusedStream, why: "the connection is at its stream limit or going away")
      return
    }
    if let violation = HeaderListCheck.request(headers) {
      state.events.record("malformed_request", code: "PROTOCOL_ERROR", detail: "\(violation)")
      refuse(stream: id, code: .protocolError, why: "\(violation)")
      return
    }
    let size = HeaderListCheck.listSize(headers)
    guard size <= state.limits.maxHeaderListSize else {
      return answer(
        stream: id, requestEnded: end, grpcStatus: 8,
        message:
          "the request's header list is \(size) bytes; the gateway takes at most \(state.limits.maxHeaderListSize)")
    }
    let stream = RelayStream(
      id: id, call: nil, sendWindow: peerInitialWindow, receiveWindow: RelaySettings.initialWindowSize,
      openedAt: state.timers.now)
    streams[id] = stream
    defences.idleSince = nil
    if end { stream.remoteEnded = true }
    let call = RelayedCall(client: self, stream: stream, state: state)
    stream.call = call
    call.started(headers: headers, endStream: end)
    closeIfDone(stream)
  }

  private func receiveResetStream(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.streamID != 0 else { return connectionError(.protocolError, "RST_STREAM on stream 0") }
    guard header.length == 4 else { return connectionError(.frameSizeError, "RST_STREAM of \(header.length) bytes") }
    let code = payload.getInteger(at: payload.readerIndex, as: UInt32.self) ?? 0
    state.events.record(
      "reset_received", code: HTTP2Wire.ErrorCode.name(code), detail: "stream \(header.streamID)",
      log: code != HTTP2Wire.ErrorCode.cancel.rawValue && code != HTTP2Wire.ErrorCode.noError.rawValue)
    guard let stream = streams.removeValue(forKey: header.streamID) else {
      if isIdle(header.streamID) { return connectionError(.protocolError, "RST_STREAM on an idle stream") }
      if role == .server { glitch("RST_STREAM on a closed stream") }
      return
    }
    if role == .server { glitch("a stream reset by the client") }
    streamRemoved(stream)
    let call = stream.call
    stream.call = nil
    call?.streamReset(stream, on: self)
  }

  private func receiveSettings(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.streamID == 0 else { return connectionError(.protocolError, "SETTINGS on a stream") }
    if header.has(HTTP2Wire.Flag.ack) {
      if header.length != 0 { connectionError(.frameSizeError, "SETTINGS acknowledgement with a payload") }
      return
    }
    guard header.length % 6 == 0 else { return connectionError(.frameSizeError, "SETTINGS of \(header.length) bytes") }
    defences.handshakeDone = true
    controlFrame("SETTINGS")
    guard !closed else { return }
    var payload = payload
    var windowGrew = false
    while let id = payload.readInteger(as: UInt16.self), let raw = payload.readInteger(as: UInt32.self) {
      let value = Int(raw)
      switch HTTP2Wire.Setting(rawValue: id) {
      case .headerTableSize:
        try? encoder.setDynamicTableSize(min(value, HPACKEncoder.defaultDynamicTableSize))
      case .maxConcurrentStreams:
        peerMaxStreams = value
      case .initialWindowSize:
        guard value <= HTTP2Wire.maxWindow else {
          return connectionError(.flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1")
        }
        let delta = value - peerInitialWindow
        peerInitialWindow = value
        for stream in streams.values { stream.sendWindow += delta }
        windowGrew = windowGrew || delta > 0
      case .maxFrameSize:
        guard (HTTP2Wire.defaultMaxFrameSize...0xFF_FFFF).contains(value) else {
          return connectionError(.protocolError, "SETTINGS_MAX_FRAME_SIZE out of range")
        }
        peerMaxFrameSize = value
      case .enablePush:
        guard value <= 1 else { return connectionError(.protocolError, "SETTINGS_ENABLE_PUSH not 0 or 1") }
      case .maxHeaderListSize:
        peerMaxHeaderListSize = value
      case nil:
        break
      }
    }
    output.writeFrameHeader(length: 0, type: .settings, flags: HTTP2Wire.Flag.ack, stream: 0)
    flushSoon()
    if windowGrew {
      for stream in Array(streams.values) where !stream.queue.isEmpty { drain(stream) }
    }
  }

  private func receivePing(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.streamID == 0 else { return connectionError(.protocolError, "PING on a stream") }
    guard header.length == 8 else { return connectionError(.frameSizeError, "PING of \(header.length) bytes") }
    guard !header.has(HTTP2Wire.Flag.ack) else { return }
    controlFrame("PING")
    guard !closed else { return }
    var payload = payload
    output.writeFrameHeader(length: 8, type: .ping, flags: HTTP2Wire.Flag.ack, stream: 0)
    output.writeBuffer(&payload)
    flushSoon()
  }

  private func receiveGoAway(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.streamID == 0 else { return connectionError(.protocolError, "GOAWAY on a stream") }
    var payload = payload
    guard let last = payload.readInteger(as: UInt32.self) else {
      return connectionError(.frameSizeError, "GOAWAY too short")
    }
    let code = payload.readInteger(as: UInt32.self) ?? 0
    state.events.record(
      "goaway_received", code: HTTP2Wire.ErrorCode.name(code),
      detail: role == .client ? "from an upstream" : "from a client")
    retire()
    if role == .client {
      // Streams above the last one the peer will process were never seen: they may go elsewhere.
      let lastProcessed = last & 0x7FFF_FFFF
      for stream in Array(streams.values) where stream.id > lastProcessed {
        streams[stream.id] = nil
        streamRemoved(stream)
        let call = stream.call
        stream.call = nil
        call?.streamReset(stream, on: self)
      }
    }
    closeWhenIdle()
  }

  private func receiveWindowUpdate(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.length == 4, let raw = payload.getInteger(at: payload.readerIndex, as: UInt32.self) else {
      return connectionError(.frameSizeError, "WINDOW_UPDATE of \(header.length) bytes")
    }
    let increment = Int(raw & 0x7FFF_FFFF)
    if header.streamID == 0 {
      guard increment > 0 else { return connectionError(.protocolError, "WINDOW_UPDATE of 0") }
      sendWindow += increment
      guard sendWindow <= HTTP2Wire.maxWindow else {
        return connectionError(.flowControlError, "connection window above 2^31-1")
      }
      drainBlocked()
    } else if let stream = streams[header.streamID] {
      guard increment > 0 else { return resetStream(stream, code: .protocolError) }
      stream.sendWindow += increment
      guard stream.sendWindow <= HTTP2Wire.maxWindow else { return resetStream(stream, code: .flowControlError) }
      if !stream.queue.isEmpty { drain(stream) }
    } else if role == .server && isIdle(header.streamID) {
      connectionError(.protocolError, "WINDOW_UPDATE on stream \(header.streamID), which is not open")
    }
  }
}
