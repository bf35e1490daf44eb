import NIOCore
import NIOHTTP2

/// One connection of the probe, right after its NIOHTTP2Handler (no multiplexer): every frame of the
/// connection arrives here and goes to the loop's `LoopRelay`, which writes it on the other side of
/// the call. A client's connection (`.client`) or the loop's upstream connection (`.upstream`).
/// Used only on its event loop.
final class FramePeer: ChannelInboundHandler {
  typealias InboundIn = HTTP2Frame
  typealias OutboundOut = HTTP2Frame

  enum Side {
    case client
    case upstream
  }

  /// What both sides advertise.
  static let settings: HTTP2Settings = [
    HTTP2Setting(parameter: .maxConcurrentStreams, value: 1000),
    HTTP2Setting(parameter: .initialWindowSize, value: streamWindow),
    HTTP2Setting(parameter: .maxHeaderListSize, value: 16384),
  ]
  /// Each connection's receive window, as the hand-written relay's (`RelaySettings.connectionWindow`).
  /// NIOHTTP2Handler without a multiplexer sends no connection-level WINDOW_UPDATE itself.
  static let connectionWindow = 16 << 20
  /// Each stream's receive window (SETTINGS_INITIAL_WINDOW_SIZE above).
  static let streamWindow = 1 << 20
  /// HTTP/2's initial connection window (RFC 9113 §6.9.2).
  private static let defaultWindow = 65535

  let side: Side
  private let relay: LoopRelay
  private var context: ChannelHandlerContext?
  private var active = false
  private var gone = false
  private var unflushed = false
  /// DATA bytes each stream's peer sent and has not been granted back yet.
  private var pendingCredit: [HTTP2StreamID: Int] = [:]
  /// Frames sent before the connection was up (the upstream's first streams).
  private var waiting: [HTTP2Frame] = []
  /// A client's connection: each of its streams' upstream stream.
  var upstreamIDs: [HTTP2StreamID: HTTP2StreamID] = [:]
  /// The upstream connection: the id of the next stream it opens.
  var nextStreamID: HTTP2StreamID = 1

  init(side: Side, relay: LoopRelay) {
    self.side = side
    self.relay = relay
  }

  /// Writes `frame` (flushed at the end of the current read); before the connection is up, keeps it.
  func send(_ frame: HTTP2Frame) {
    guard !gone else { return }
    guard active, let context else {
      waiting.append(frame)
      return
    }
    context.write(wrapOutboundOut(frame), promise: nil)
    if !unflushed {
      unflushed = true
      relay.needsFlush(self)
    }
  }

  func flush() {
    unflushed = false
    context?.flush()
  }

  /// Gives back, on `streamID`, the window DATA frames this peer sent used, once a quarter of the
  /// stream window has gathered (as the hand-written relay does); nothing on a stream the frame
  /// ended (the peer sends no more on it).
  func credit(_ streamID: HTTP2StreamID, _ data: HTTP2Frame.FramePayload.Data) {
    let bytes = data.data.readableBytes + (data.paddingBytes.map { $0 + 1 } ?? 0)
    guard bytes > 0, !data.endStream else { return }
    let gathered = pendingCredit[streamID, default: 0] + bytes
    guard gathered >= Self.streamWindow / 4 else {
      pendingCredit[streamID] = gathered
      return
    }
    pendingCredit[streamID] = nil
    send(HTTP2Frame(streamID: streamID, payload: .windowUpdate(windowSizeIncrement: gathered)))
  }

  /// The connection is gone, or never came up.
  func lost() {
    guard !gone else { return }
    gone = true
    active = false
    waiting = []
    relay.lost(self)
  }

  // MARK: The channel

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    if context.channel.isActive { becameActive() }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    self.context = nil
    lost()
  }

  func channelActive(context: ChannelHandlerContext) {
    becameActive()
    context.fireChannelActive()
  }

  /// NIOHTTP2Handler has sent its preface: the connection window is raised and what waited is sent.
  private func becameActive() {
    guard !active, !gone else { return }
    active = true
    let increment = Self.connectionWindow - Self.defaultWindow
    send(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment)))
    let frames = waiting
    waiting = []
    for frame in frames { send(frame) }
    relay.flushAll()
  }

  func channelInactive(context: ChannelHandlerContext) {
    lost()
    context.fireChannelInactive()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch side {
    case .client: relay.fromClient(frame, on: self)
    case .upstream: relay.fromUpstream(frame, on: self)
    }
  }

  func channelReadComplete(context: ChannelHandlerContext) {
    relay.flushAll()
    context.fireChannelReadComplete()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if let event = event as? NIOHTTP2WindowUpdatedEvent, event.streamID == .rootStream,
      let window = event.inboundWindowSize, window <= Self.connectionWindow / 4 * 3
    {
      // Every DATA frame received, even one for a stream already gone, reports the connection window.
      let increment = Self.connectionWindow - window
      send(HTTP2Frame(streamID: .rootStream, payload: .windowUpdate(windowSizeIncrement: increment)))
    } else if let event = event as? StreamClosedEvent {
      pendingCredit[event.streamID] = nil
      // Reset by the peer, or by NIOHTTP2Handler on a stream error (it has sent the RST_STREAM).
      if let reason = event.reason { relay.reset(event.streamID, on: self, code: reason) }
    }
    context.fireUserInboundEventTriggered(event)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    // A write refused on one stream comes as a StreamError and concerns that stream only. Anything
    // else (a connection error, after which NIOHTTP2Handler has sent GOAWAY; also an inbound stream
    // error, which it reports unwrapped after resetting the stream) closes the connection.
    guard !(error is NIOHTTP2Errors.StreamError) else { return }
    context.close(promise: nil)
  }
}
