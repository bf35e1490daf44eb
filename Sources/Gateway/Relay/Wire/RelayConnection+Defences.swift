internal import NIOCore
internal import NIOHPACK

/// What a peer may still do on one connection before the relay calls it abuse.
struct ConnectionDefences {
  /// Resets, stream errors, empty frames, HEADERS on closed streams (rapid reset and its kin).
  var glitches: RateBudget
  /// PING, SETTINGS and PRIORITY frames.
  var controlFrames: RateBudget
  /// Resets the relay sends an upstream (client role).
  var upstreamResets: RateBudget
  init(limits: RelayLimits, now: NIODeadline) {
    glitches = RateBudget(capacity: limits.maxGlitches, window: limits.glitchWindow, now: now)
    controlFrames = RateBudget(capacity: limits.maxControlFrames, window: limits.controlFrameWindow, now: now)
    upstreamResets = RateBudget(capacity: limits.maxUpstreamResets, window: limits.glitchWindow, now: now)
  }
}

extension RelayConnection {
  /// A client did something a well-behaved one rarely does; past the budget the connection ends.
  /// An upstream is trusted: what it does after the relay reset its streams (trailers racing the
  /// reset) is no glitch.
  func glitch(_ what: @autoclosure () -> String) {
    guard role == .server, !machine.isClosed, !defences.glitches.spend(now: state.now) else { return }
    connectionError(
      .enhanceYourCalm,
      "too many resets, stream errors or empty frames (\(state.limits.maxGlitches) per \(state.limits.glitchWindow)); the last: \(what())"
    )
  }

  /// A PING, SETTINGS or PRIORITY frame from a client; past the budget the connection ends.
  func controlFrame(_ kind: String) {
    guard role == .server, !machine.isClosed, !defences.controlFrames.spend(now: state.now) else { return }
    connectionError(
      .enhanceYourCalm,
      "too many \(kind) and other control frames (\(state.limits.maxControlFrames) per \(state.limits.controlFrameWindow))"
    )
  }

  /// The relay reset a stream it had announced to an upstream (client role): an upstream on
  /// swift-nio-http2 ends a connection that resets too many, with every call on it, so past the
  /// budget this connection takes no new streams and closes once its calls are done.
  func upstreamResetSent() {
    guard role == .client, machine.takesNewStreams, !defences.upstreamResets.spend(now: state.now) else { return }
    state.events.record(
      "upstream_connection_retired", code: "RESETS",
      detail:
        "\(state.limits.maxUpstreamResets) resets sent within \(state.limits.glitchWindow); new calls use another connection"
    )
    retire()
  }

  /// Refuses a stream the client opened, before any call starts, with RST_STREAM `code`.
  func refuse(stream id: UInt32, code: HTTP2Wire.ErrorCode, why: String) {
    output.writeResetStream(stream: id, code: code)
    state.events.record(code == .refusedStream ? "stream_refused" : "reset_sent", code: code.name, detail: why)
    flushSoon()
    glitch(why)
  }

  /// Answers a stream the client opened with a gRPC status and nothing else (trailers only), and
  /// ends it, before any call starts.
  func answer(stream id: UInt32, requestEnded: Bool, grpcStatus: Int, message: String) {
    var headers = HPACKHeaders()
    headers.add(name: ":status", value: "200")
    headers.add(name: "content-type", value: "application/grpc")
    headers.add(name: "grpc-status", value: "\(grpcStatus)")
    headers.add(name: "grpc-message", value: message)
    writeHeaders(headers, endStream: true, stream: id)
    if !requestEnded { output.writeResetStream(stream: id, code: .noError) }
    state.events.record("call_refused", code: "\(grpcStatus)", detail: message)
    flushSoon()
  }

  /// The socket's writability changed: while the peer leaves the relay's output unread, nothing
  /// more is read from it (server role) and no DATA is written to it.
  func writabilityChanged(writable: Bool) {
    if machine.writabilityChanged(writable: writable, now: state.timers.now) { context?.read() }
    if writable { drainBlocked() }
  }

  /// Checks the connection's deadlines (server role), at `now`: the handshake, a socket that does
  /// not drain, idleness, and calls still waiting for the message they are routed by — at most
  /// `budget` of those (what is left of it is passed on).
  func checkDeadlines(now: NIODeadline, budget: inout Int) {
    guard !machine.isClosed else { return }
    let limits = state.limits
    switch machine.expired(now: now, limits: limits) {
    case .handshake:
      state.events.record(
        "connection_timed_out", code: "HANDSHAKE", detail: "no preface and SETTINGS within \(limits.handshakeTimeout)")
      return abandon()
    case .stalled:
      state.events.record(
        "connection_timed_out", code: "STALLED", detail: "output left unread for \(limits.stalledWriteTimeout)")
      return abandon()
    case .idle:
      state.events.record("connection_timed_out", code: "IDLE", detail: "no stream for \(limits.idleTimeout)")
      return goAway(code: .noError, message: "idle for \(limits.idleTimeout)")
    case .none:
      break
    }
    let firstMessageDeadline = TimeAmount(limits.firstMessageTimeout)
    var expired: [RelayStream] = []
    for stream in streams.values where budget > 0 && now - stream.openedAt > firstMessageDeadline {
      guard stream.call?.isRouting == true else { continue }
      expired.append(stream)
      budget -= 1
    }
    for stream in expired { stream.call?.firstMessageTimedOut() }
  }

  /// Closes the connection at once: its peer is not to be waited for.
  private func abandon() {
    if machine.failed() == .closeAfterFlush { flushNow() }
  }
}
