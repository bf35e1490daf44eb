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
/// data. Frames are gathered into one buffer and written once per event-loop tick. Used only on
/// its event loop.
final class RelayConnection: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  enum Role {
    /// A client's connection to the gateway.
    case server
    /// The gateway's connection to an upstream.
    case client
  }

  let role: Role
  let state: RelayLoopState
  private var context: ChannelHandlerContext?
  private var active = false
  private var closed = false
  private var closeWhenFlushed = false
  private var flushScheduled = false
  private var reader: HTTP2FrameReader
  private var output: ByteBuffer
  private var decoder: HPACKDecoder
  private var encoder: HPACKEncoder
  private var headerScratch: ByteBuffer
  private var streams: [UInt32: RelayStream] = [:]
  /// Streams whose DATA waits for the connection's send window.
  private var blocked: [RelayStream] = []

  private var peerInitialWindow = HTTP2Wire.defaultWindow
  private var peerMaxFrameSize = HTTP2Wire.defaultMaxFrameSize
  /// How many streams the peer lets the relay open (client role).
  private var peerMaxStreams: Int
  private var sendWindow = HTTP2Wire.defaultWindow
  private var receiveWindow = RelaySettings.connectionWindow
  private var creditPending = 0
  private var lastPeerStream: UInt32 = 0
  private var nextLocalStream: UInt32 = 1
  /// No new streams: GOAWAY sent or received, or the connection is gone.
  private var goingAway = false
  /// Called once when the connection takes no new streams.
  var onRetire: ((RelayConnection) -> Void)?

  init(role: Role, state: RelayLoopState) {
    self.role = role
    self.state = state
    let allocator = ByteBufferAllocator()
    reader = HTTP2FrameReader(expectingPreface: role == .server)
    peerMaxStreams = role == .client ? 100 : 0
    decoder = HPACKDecoder(
      allocator: allocator, maxDynamicTableSize: HPACKDecoder.maxDynamicTableSize,
      maxHeaderListSize: RelaySettings.maxHeaderListSize)
    // Literal strings are sent as they are: Huffman coding saves a few bytes per header and costs
    // the most CPU of any step of a relayed call's HPACK work.
    encoder = HPACKEncoder(allocator: allocator, useHuffmanEncoding: false)
    headerScratch = allocator.buffer(capacity: 256)
    output = allocator.buffer(capacity: 1024)
    if role == .client { output.writeBytes(HTTP2Wire.clientPreface) }
    var settings: [(HTTP2Wire.Setting, Int)] = [
      (.initialWindowSize, RelaySettings.initialWindowSize),
      (.maxHeaderListSize, RelaySettings.maxHeaderListSize),
    ]
    switch role {
    case .server: settings.append((.maxConcurrentStreams, RelaySettings.maxConcurrentStreams))
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
    if context.channel.isActive { becameActive() }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    self.context = nil
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

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is ChannelShouldQuiesceEvent {
      // Graceful shutdown: streams already open finish, then the connection closes.
      guard !goingAway else { return }
      output.writeGoAway(lastStream: lastPeerStream, code: .noError, message: "the gateway is shutting down")
      retire()
      closeWhenIdle()
      flushSoon()
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  /// The connection is gone (or never came up): every stream on it ends.
  func lost() {
    guard !closed else { return }
    closed = true
    retire()
    let ended = streams.values
    streams = [:]
    blocked = []
    for stream in ended {
      let call = stream.call
      stream.call = nil
      call?.streamReset(stream, on: self)
    }
  }

  private func retire() {
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
      if header.streamID == 0 || header.length != 5 { connectionError(.protocolError, "malformed PRIORITY frame") }
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
    let end = header.has(HTTP2Wire.Flag.endStream)
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
      return connectionError(.compressionError, "a header block does not decode")
    }
    let end = flags & HTTP2Wire.Flag.endStream != 0
    if let stream = streams[id] {
      guard !stream.remoteEnded else { return resetStream(stream, code: .streamClosed) }
      if end { stream.remoteEnded = true }
      stream.call?.received(headers: headers, endStream: end, on: stream, from: self)
      closeIfDone(stream)
      return
    }
    guard role == .server, id > lastPeerStream else {
      if isIdle(id) { connectionError(.protocolError, "HEADERS on stream \(id), which the peer may not open") }
      return  // a stream already closed: its header block kept the HPACK state in step, nothing more
    }
    guard id % 2 == 1 else { return connectionError(.protocolError, "a client opened even stream \(id)") }
    lastPeerStream = id
    guard !goingAway, streams.count < RelaySettings.maxConcurrentStreams else {
      output.writeResetStream(stream: id, code: .refusedStream)
      flushSoon()
      return
    }
    let stream = RelayStream(
      id: id, call: nil, sendWindow: peerInitialWindow, receiveWindow: RelaySettings.initialWindowSize)
    streams[id] = stream
    if end { stream.remoteEnded = true }
    let call = RelayedCall(client: self, stream: stream, state: state)
    stream.call = call
    call.started(headers: headers, endStream: end)
    closeIfDone(stream)
  }

  private func receiveResetStream(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.streamID != 0 else { return connectionError(.protocolError, "RST_STREAM on stream 0") }
    guard header.length == 4 else { return connectionError(.frameSizeError, "RST_STREAM of \(header.length) bytes") }
    guard let stream = streams.removeValue(forKey: header.streamID) else {
      if isIdle(header.streamID) { connectionError(.protocolError, "RST_STREAM on an idle stream") }
      return
    }
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
      case .maxHeaderListSize, nil:
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
      let waiting = blocked
      blocked = []
      for stream in waiting where streams[stream.id] === stream { drain(stream) }
    } else if let stream = streams[header.streamID] {
      guard increment > 0 else { return resetStream(stream, code: .protocolError) }
      stream.sendWindow += increment
      guard stream.sendWindow <= HTTP2Wire.maxWindow else { return resetStream(stream, code: .flowControlError) }
      if !stream.queue.isEmpty { drain(stream) }
    }
  }

  // MARK: What calls do

  /// Opens a stream for `call` (client role); nil when this connection takes no new streams.
  func openStream(for call: RelayedCall) -> RelayStream? {
    guard role == .client, hasRoom else { return nil }
    let stream = RelayStream(
      id: nextLocalStream, call: call, sendWindow: peerInitialWindow, receiveWindow: RelaySettings.initialWindowSize)
    nextLocalStream += 2
    streams[stream.id] = stream
    return stream
  }

  /// Sends `item` on `stream` as soon as flow control allows, after whatever waits before it.
  func send(_ item: RelayStream.Outgoing, on stream: RelayStream) {
    guard streams[stream.id] === stream, !stream.localEnded else { return }
    if item.endsStream { stream.localEnded = true }
    stream.queue.append(item)
    if stream.queue.count == 1 { drain(stream) }
  }

  /// Ends `stream` with RST_STREAM; what waited to be sent on it is dropped.
  func reset(_ stream: RelayStream, code: HTTP2Wire.ErrorCode) {
    guard streams[stream.id] === stream else { return }
    streams[stream.id] = nil
    stream.call = nil
    output.writeResetStream(stream: stream.id, code: code)
    streamRemoved(stream)
    flushSoon()
  }

  /// `bytes` of DATA received on `stream` have been passed on: the peer may send as many again.
  func credit(_ stream: RelayStream, _ bytes: Int) {
    guard bytes > 0, !closed else { return }
    creditConnection(bytes)
    guard streams[stream.id] === stream, !stream.remoteEnded else { return }
    stream.creditPending += bytes
    if stream.creditPending >= RelaySettings.initialWindowSize / 4 {
      output.writeWindowUpdate(stream: stream.id, increment: stream.creditPending)
      stream.receiveWindow += stream.creditPending
      stream.creditPending = 0
      flushSoon()
    }
  }

  private func creditConnection(_ bytes: Int) {
    creditPending += bytes
    if creditPending >= RelaySettings.connectionWindow / 4 {
      output.writeWindowUpdate(stream: 0, increment: creditPending)
      receiveWindow += creditPending
      creditPending = 0
      flushSoon()
    }
  }

  // MARK: Writing

  /// Writes what `stream` has queued, as far as the windows allow.
  private func drain(_ stream: RelayStream) {
    var sent = 0
    drainLoop: while let first = stream.queue.first {
      switch first {
      case .headers(let headers, let end):
        writeHeaders(headers, endStream: end, stream: stream.id)
        stream.queue.removeFirst()
      case .data(var buffer, let end):
        if buffer.readableBytes == 0 {
          output.writeFrameHeader(length: 0, type: .data, flags: end ? HTTP2Wire.Flag.endStream : 0, stream: stream.id)
          stream.queue.removeFirst()
          continue
        }
        let allowed = min(stream.sendWindow, sendWindow, peerMaxFrameSize)
        guard allowed > 0 else {
          if sendWindow <= 0, !blocked.contains(where: { $0 === stream }) { blocked.append(stream) }
          break drainLoop
        }
        var chunk = buffer.readSlice(length: min(allowed, buffer.readableBytes))!
        let last = buffer.readableBytes == 0
        output.writeFrameHeader(
          length: chunk.readableBytes, type: .data, flags: last && end ? HTTP2Wire.Flag.endStream : 0,
          stream: stream.id)
        stream.sendWindow -= chunk.readableBytes
        sendWindow -= chunk.readableBytes
        sent += chunk.readableBytes
        output.writeBuffer(&chunk)
        if last {
          stream.queue.removeFirst()
        } else {
          stream.queue[0] = .data(buffer, endStream: end)
        }
      }
    }
    flushSoon()
    if sent > 0 { stream.call?.sent(sent, on: stream) }
    closeIfDone(stream)
  }

  private func writeHeaders(_ headers: HPACKHeaders, endStream: Bool, stream: UInt32) {
    headerScratch.clear()
    do {
      try encoder.encode(headers: headers, to: &headerScratch)
    } catch {
      return connectionError(.internalError, "a header block could not be encoded")
    }
    var first = true
    repeat {
      var fragment = headerScratch.readSlice(length: min(peerMaxFrameSize, headerScratch.readableBytes))!
      let done = headerScratch.readableBytes == 0
      var flags = done ? HTTP2Wire.Flag.endHeaders : 0
      if first && endStream { flags |= HTTP2Wire.Flag.endStream }
      output.writeFrameHeader(
        length: fragment.readableBytes, type: first ? .headers : .continuation, flags: flags, stream: stream)
      output.writeBuffer(&fragment)
      first = false
    } while headerScratch.readableBytes > 0
  }

  /// Closes `stream` once both ends are done. A client's stream whose answer is complete while
  /// its request is not is reset with NO_ERROR, as RFC 9113 §8.1 lets a server do.
  private func closeIfDone(_ stream: RelayStream) {
    guard stream.localEnded, stream.queue.isEmpty, streams[stream.id] === stream else { return }
    if stream.remoteEnded {
      streams[stream.id] = nil
      stream.call = nil
      streamRemoved(stream)
    } else if role == .server {
      reset(stream, code: .noError)
    }
  }

  private func streamRemoved(_ stream: RelayStream) {
    if let index = blocked.firstIndex(where: { $0 === stream }) { blocked.remove(at: index) }
    if goingAway && streams.isEmpty { closeWhenIdle() }
  }

  private func resetStream(_ stream: RelayStream, code: HTTP2Wire.ErrorCode) {
    let call = stream.call
    reset(stream, code: code)
    call?.streamReset(stream, on: self)
  }

  private func closeWhenIdle() {
    guard streams.isEmpty else { return }
    closeWhenFlushed = true
    flushSoon()
  }

  private func connectionError(_ code: HTTP2Wire.ErrorCode, _ message: String) {
    guard !closed else { return }
    output.writeGoAway(lastStream: lastPeerStream, code: code, message: message)
    closeWhenFlushed = true
    flushNow()
    lost()
  }

  /// Writes the gathered frames before the event loop next waits for I/O.
  private func flushSoon() {
    guard !flushScheduled else { return }
    flushScheduled = true
    state.flusher.flushSoon(self)
  }

  /// Writes the gathered frames now.
  func flushNow() {
    flushScheduled = false
    guard active, let context else { return }
    if output.readableBytes > 0 {
      context.writeAndFlush(wrapOutboundOut(output), promise: nil)
      // The written bytes keep their storage; a large message's capacity is not carried on.
      if output.capacity > RelaySettings.maxFrameSize * 4 {
        output = context.channel.allocator.buffer(capacity: 4096)
      } else {
        output.clear()
      }
    }
    if closeWhenFlushed {
      closeWhenFlushed = false
      context.close(promise: nil)
    }
  }
}
