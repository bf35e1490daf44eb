internal import NIOCore
internal import NIOHPACK

extension RelayConnection {
  // MARK: What calls do

  /// Opens a stream for `call` (client role); nil when this connection takes no new streams. Its
  /// frames go out at the next flush; reset before then, it is never announced to the upstream.
  func openStream(for call: RelayedCall) -> RelayStream? {
    guard role == .client, hasRoom else { return nil }
    let stream = RelayStream(
      id: nextLocalStream, call: call, state: .openedByRelay, sendWindow: peerInitialWindow,
      receiveWindow: RelaySettings.initialWindowSize, openedAt: state.timers.now)
    nextLocalStream += 2
    streams[stream.id] = stream
    unannounced.append(stream)
    flushSoon()
    return stream
  }

  /// Sends `item` on `stream` as soon as flow control allows, after whatever waits before it.
  func send(_ item: RelayStream.Outgoing, on stream: RelayStream) {
    guard streams[stream.id] === stream, !stream.localEnded else { return }
    if item.endsStream { stream.state.endLocally() }
    stream.queue.append(item)
    if stream.queue.count == 1 && stream.announced { drain(stream) }
  }

  /// Ends `stream` with RST_STREAM; what waited to be sent on it is dropped. A stream the upstream
  /// never heard of simply goes.
  func reset(_ stream: RelayStream, code: HTTP2Wire.ErrorCode) {
    guard streams[stream.id] === stream else { return }
    streams[stream.id] = nil
    stream.call = nil
    stream.queue = []
    if stream.announced {
      output.writeResetStream(stream: stream.id, code: code)
      if code != .noError && code != .cancel {
        state.events.record("reset_sent", code: code.name, detail: "stream \(stream.id)")
      }
      upstreamResetSent()
      flushSoon()
    }
    streamRemoved(stream)
  }

  /// `bytes` of DATA received on `stream` have been passed on: the peer may send as many again.
  func credit(_ stream: RelayStream, _ bytes: Int) {
    guard bytes > 0, !machine.isClosed else { return }
    creditConnection(bytes)
    guard streams[stream.id] === stream, !stream.remoteEnded else { return }
    if let increment = stream.window.credit(bytes) {
      output.writeWindowUpdate(stream: stream.id, increment: increment)
      flushSoon()
    }
  }

  func creditConnection(_ bytes: Int) {
    if let increment = window.credit(bytes) {
      output.writeWindowUpdate(stream: 0, increment: increment)
      flushSoon()
    }
  }

  // MARK: Writing

  /// Writes what `stream` has queued, as far as the windows and the socket allow.
  func drain(_ stream: RelayStream) {
    // A stream not yet announced goes out at the next flush, in the order streams were opened
    // (stream ids must rise on the wire).
    guard stream.announced else { return }
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
        let allowed = canSendData ? min(stream.window.send, window.send, peerMaxFrameSize) : 0
        guard allowed > 0 else {
          if (window.send <= 0 || !canSendData), !blocked.contains(where: { $0 === stream }) { blocked.append(stream) }
          // What waits keeps its own bytes, not the read buffer of the connection it came from.
          stream.queue[0] = .data(buffer.compacted(), endStream: end)
          break drainLoop
        }
        var chunk = buffer.readSlice(length: min(allowed, buffer.readableBytes))!
        let last = buffer.readableBytes == 0
        output.writeFrameHeader(
          length: chunk.readableBytes, type: .data, flags: last && end ? HTTP2Wire.Flag.endStream : 0,
          stream: stream.id)
        stream.window.sent(chunk.readableBytes)
        window.sent(chunk.readableBytes)
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

  /// Drains the streams that waited for the connection's window or the socket.
  func drainBlocked() {
    guard !blocked.isEmpty, window.send > 0, canSendData else { return }
    let waiting = blocked
    blocked = []
    for stream in waiting where streams[stream.id] === stream { drain(stream) }
  }

  /// Whether DATA may be written now: the socket drains and little waits to be flushed.
  var canSendData: Bool {
    (context?.channel.isWritable ?? true) && output.readableBytes < state.limits.maxQueuedOutputBytes
  }

  func writeHeaders(_ headers: HPACKHeaders, endStream: Bool, stream: UInt32) {
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
  func closeIfDone(_ stream: RelayStream) {
    guard stream.localEnded, stream.queue.isEmpty, streams[stream.id] === stream else { return }
    if stream.remoteEnded {
      streams[stream.id] = nil
      stream.call = nil
      streamRemoved(stream)
    } else if role == .server {
      reset(stream, code: .noError)
    }
  }

  func streamRemoved(_ stream: RelayStream) {
    if let index = blocked.firstIndex(where: { $0 === stream }) { blocked.remove(at: index) }
    if streams.isEmpty, machine.streamsEnded(now: state.timers.now) == .closeAfterFlush { flushSoon() }
  }

  func resetStream(_ stream: RelayStream, code: HTTP2Wire.ErrorCode) {
    let call = stream.call
    reset(stream, code: code)
    if role == .server { glitch("a stream the relay reset (\(code.name))") }
    call?.streamReset(stream, on: self)
  }

  func connectionError(_ code: HTTP2Wire.ErrorCode, _ message: String) {
    guard !machine.isClosed else { return }
    state.events.record("goaway_sent", code: code.name, detail: message)
    output.writeGoAway(lastStream: lastPeerStream, code: code, message: message)
    // Streams not announced yet are not announced after the GOAWAY: they end with the connection.
    unannounced = []
    if machine.failed() == .closeAfterFlush { flushNow() }
  }

  /// Writes the gathered frames before the event loop next waits for I/O.
  func flushSoon() {
    guard !flushScheduled else { return }
    flushScheduled = true
    state.flusher.flushSoon(self)
  }

  /// Writes the gathered frames now: first the HEADERS of streams opened since the last flush
  /// and still wanted.
  func flushNow() {
    guard machine.isActive, let context else {
      flushScheduled = false
      return
    }
    if !unannounced.isEmpty { announceStreams() }
    flushScheduled = false
    let written = output.readableBytes
    if written > 0 {
      context.writeAndFlush(wrapOutboundOut(output), promise: nil)
      // What was gathered while the write ran (a writability change drains streams) stays.
      output.moveReaderIndex(forwardBy: written)
      if output.readableBytes > 0 {
        flushSoon()
      } else if output.capacity > RelaySettings.maxFrameSize * 4 {
        // The written bytes keep their storage; a large message's capacity is not carried on.
        output = context.channel.allocator.buffer(capacity: 4096)
      } else {
        output.clear()
      }
    }
    if machine.state == .closing {
      // The connection ends with what was written: its streams end now, not when the socket says so.
      context.close(promise: nil)
      lost()
    } else if !blocked.isEmpty {
      drainBlocked()
    }
  }

  /// Sends what streams opened since the last flush have queued, in the order they were opened.
  private func announceStreams() {
    let opened = unannounced
    unannounced = []
    for stream in opened where streams[stream.id] === stream {
      stream.state.announce()
      drain(stream)
    }
  }
}

extension ByteBuffer {
  /// These bytes in storage of their own, when they are a small part of a larger buffer (a read
  /// buffer that other frames' slices also keep alive).
  func compacted() -> ByteBuffer {
    guard readableBytes < 4096 else { return self }
    var copy = ByteBufferAllocator().buffer(capacity: readableBytes)
    copy.writeImmutableBuffer(self)
    return copy
  }
}
