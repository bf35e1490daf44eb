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
  /// Connecting, handshake, open, draining, closing, closed; and whether the peer reads.
  var machine: RelayConnectionStateMachine
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
  /// The largest header list the peer takes (its SETTINGS_MAX_HEADER_LIST_SIZE; client role):
  /// until its SETTINGS say otherwise, the 16 KiB gRPC servers commonly take.
  var peerMaxHeaderListSize = RelayConnection.assumedMaxHeaderListSize
  static let assumedMaxHeaderListSize = 16_384
  /// The connection's flow-control windows (the relay grants 16 MiB from the start).
  var window = FlowControlWindow(send: HTTP2Wire.defaultWindow, receive: RelaySettings.connectionWindow)
  var lastPeerStream: UInt32 = 0
  var nextLocalStream: UInt32 = 1
  /// The upstream this connection goes to (client role).
  var endpoint: DomainEndpoint?
  /// Called once when the connection takes no new streams.
  var onRetire: ((RelayConnection) -> Void)?
  /// What the peer may still do before the relay calls it abuse.
  var defences: ConnectionDefences
  /// The large first messages of this client's calls the gateway's server holds (server role).
  lazy var largeRequests = LargeRequestBudget(limit: state.limits.maxLargeRequestBytesPerConnection)

  init(role: Role, state: RelayLoopState) {
    self.role = role
    self.state = state
    machine = RelayConnectionStateMachine(role: role)
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
    defences = ConnectionDefences(limits: limits, now: state.now)
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
    machine.takesNewStreams && streams.count < peerMaxStreams && nextLocalStream < 0x7FFF_FF00
  }

  // MARK: The channel

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    // The timers' clock is fresh once they run (it may have stood still while the loop had no
    // connection).
    if role == .server { state.timers.add(self) }
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
    if machine.becameActive(now: state.timers.now) == .flush { flushSoon() }
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
    if machine.readRequested() { context.read() }
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
    guard machine.takesNewStreams else { return }
    output.writeGoAway(lastStream: lastPeerStream, code: code, message: message)
    retire()
    flushSoon()
  }

  /// The connection is gone (or never came up): every stream on it ends.
  func lost() {
    guard machine.lost() == .failStreams else { return }
    state.timers.remove(self)
    leavePool()
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

  /// No new streams from now on; the connection closes once its last stream ends.
  func retire() {
    switch machine.retire(streamsOpen: !streams.isEmpty) {
    case .retire(let closeNow):
      leavePool()
      if closeNow { flushSoon() }
    case .none, .flush, .closeAfterFlush, .failStreams:
      break
    }
  }

  private func leavePool() {
    onRetire?(self)
    onRetire = nil
  }
}
