internal import NIOCore
internal import NIOHPACK

/// The frames a peer sends, one by one: checked against RFC 9113 and the relay's limits, then
/// passed to the calls their streams belong to.
extension RelayConnection {
  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    reader.append(unwrapInboundIn(data))
    do {
      while !machine.isClosed, let (header, payload) = try reader.next() { receive(header, payload) }
    } catch HTTP2FrameReader.Failure.connection(let code, let message) {
      connectionError(code, message)
    } catch {
      context.close(promise: nil)  // not HTTP/2 with prior knowledge
    }
  }

  /// One frame, whole: padding removed, a header block with its CONTINUATION frames joined.
  private func receive(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard machine.handshakeDone || header.type == HTTP2Wire.FrameType.settings.rawValue else {
      return connectionError(.protocolError, "the client preface is not followed by SETTINGS")
    }
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
    guard window.received(header.length) else {
      return connectionError(.flowControlError, "DATA beyond the connection window")
    }
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
    guard stream.announced else {
      return connectionError(.protocolError, "DATA on stream \(header.streamID), which the relay has not opened yet")
    }
    guard stream.window.received(header.length) else {
      creditConnection(header.length)  // the stream ends; its bytes are the connection's again
      return resetStream(stream, code: .flowControlError)
    }
    let padding = header.length - payload.readableBytes
    if padding > 0 { credit(stream, padding) }
    if end { stream.state.endRemotely() }
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
      guard stream.announced else {
        return connectionError(.protocolError, "HEADERS on stream \(id), which the relay has not opened yet")
      }
      guard !stream.remoteEnded else { return resetStream(stream, code: .streamClosed) }
      if role == .server, let violation = HeaderListCheck.trailers(headers) {
        state.events.record("malformed_request", code: "PROTOCOL_ERROR", detail: "\(violation)")
        return resetStream(stream, code: .protocolError)
      }
      if role == .server, HeaderListCheck.listSize(headers) > state.limits.maxHeaderListSize {
        state.events.record(
          "malformed_request", code: "PROTOCOL_ERROR", detail: "trailers above \(state.limits.maxHeaderListSize) bytes")
        return resetStream(stream, code: .protocolError)
      }
      if end { stream.state.endRemotely() }
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
    guard machine.takesNewStreams, streams.count < state.limits.maxConcurrentStreams else {
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
      id: id, call: nil, state: .openedByPeer, sendWindow: peerInitialWindow,
      receiveWindow: RelaySettings.initialWindowSize,
      openedAt: state.timers.now)
    streams[id] = stream
    machine.streamOpened()
    if end { stream.state.endRemotely() }
    let call = RelayedCall(client: self, stream: stream, state: state, headers: headers, endStream: end)
    stream.call = call
    call.start()
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
    machine.settingsReceived()
    controlFrame("SETTINGS")
    guard !machine.isClosed else { return }
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
        for stream in streams.values {
          guard stream.window.peerGranted(delta) else {
            return connectionError(
              .flowControlError, "SETTINGS_INITIAL_WINDOW_SIZE takes a stream's window above 2^31-1")
          }
        }
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
    guard !machine.isClosed else { return }
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
    if role == .client, code == HTTP2Wire.ErrorCode.enhanceYourCalm.rawValue, let endpoint {
      state.pool.calmDown(endpoint)
    }
    if role == .client {
      // Streams not yet announced were never seen: they open again on another connection.
      let opened = unannounced
      unannounced = []
      for stream in opened where streams[stream.id] === stream {
        streams[stream.id] = nil
        streamRemoved(stream)
        let (call, waiting) = (stream.call, stream.queue)
        stream.call = nil
        stream.queue = []
        call?.neverAnnounced(stream, waiting: waiting)
      }
      // Streams above the last one the peer will process were never seen either: they may go elsewhere.
      let lastProcessed = last & 0x7FFF_FFFF
      for stream in Array(streams.values) where stream.id > lastProcessed {
        streams[stream.id] = nil
        streamRemoved(stream)
        let call = stream.call
        stream.call = nil
        call?.streamReset(stream, on: self)
      }
    }
  }

  private func receiveWindowUpdate(_ header: HTTP2Wire.FrameHeader, _ payload: ByteBuffer) {
    guard header.length == 4, let raw = payload.getInteger(at: payload.readerIndex, as: UInt32.self) else {
      return connectionError(.frameSizeError, "WINDOW_UPDATE of \(header.length) bytes")
    }
    let increment = Int(raw & 0x7FFF_FFFF)
    if header.streamID == 0 {
      guard increment > 0 else { return connectionError(.protocolError, "WINDOW_UPDATE of 0") }
      guard window.peerGranted(increment) else {
        return connectionError(.flowControlError, "connection window above 2^31-1")
      }
      drainBlocked()
    } else if let stream = streams[header.streamID] {
      guard increment > 0 else { return resetStream(stream, code: .protocolError) }
      guard stream.window.peerGranted(increment) else { return resetStream(stream, code: .flowControlError) }
      if !stream.queue.isEmpty { drain(stream) }
    } else if role == .server && isIdle(header.streamID) {
      connectionError(.protocolError, "WINDOW_UPDATE on stream \(header.streamID), which is not open")
    }
  }
}
