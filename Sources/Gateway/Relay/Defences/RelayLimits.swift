/// What any one peer of the gateway's public port may make the relay hold or do, and for how long.
/// Every limit has a default a user can change (`GatewayOptions`: a flag and an environment
/// variable each). The defaults follow swift-nio-http2's own (the domains' transport) and nginx's.
struct RelayLimits: Sendable, Equatable {
  /// Connections the relay serves at once, all loops together; one more is closed as it is accepted.
  var maxConnections = 4096
  /// Streams a client may have open at once on one connection (SETTINGS_MAX_CONCURRENT_STREAMS).
  var maxConcurrentStreams = 1000
  /// The largest header list a client may send, counted as RFC 9113 §6.5.2 counts it
  /// (SETTINGS_MAX_HEADER_LIST_SIZE); larger: the call ends RESOURCE_EXHAUSTED. A header block
  /// larger than four times this ends the connection.
  var maxHeaderListSize = 16 << 10
  /// CONTINUATION frames one header block may take; more end the connection (ENHANCE_YOUR_CALM).
  var maxContinuationFrames = 8
  /// Glitches a connection may cause — streams it resets, streams the relay resets for a protocol
  /// error, empty DATA or CONTINUATION frames that carry nothing, PRIORITY frames — per `glitchWindow`:
  /// past them GOAWAY ENHANCE_YOUR_CALM (rapid reset, CVE-2023-44487).
  var maxGlitches = 200
  var glitchWindow: Duration = .seconds(30)
  /// PING and SETTINGS frames a connection may send per `controlFrameWindow`: past them GOAWAY
  /// ENHANCE_YOUR_CALM.
  var maxControlFrames = 1000
  var controlFrameWindow: Duration = .seconds(10)
  /// Resets the relay sends on one upstream connection per `glitchWindow` before it stops opening
  /// streams there (and opens another): a domain on swift-nio-http2 ends a connection after 200
  /// resets in 30 s, which would end every other client's calls on it.
  var maxUpstreamResets = 150
  /// How long a call may take to deliver the message it is routed by (slowloris); then it ends
  /// DEADLINE_EXCEEDED.
  var firstMessageTimeout: Duration = .seconds(5)
  /// How long a new connection may take to send the HTTP/2 preface and SETTINGS.
  var handshakeTimeout: Duration = .seconds(10)
  /// How long a connection may stay without an open stream before GOAWAY closes it.
  var idleTimeout: Duration = .seconds(300)
  /// How long a peer may leave the relay's output unread (the socket not writable) before the
  /// connection is closed.
  var stalledWriteTimeout: Duration = .seconds(30)
  /// Bytes of output the relay queues for one connection before it stops reading from that peer
  /// and stops sending DATA to it (the channel's write-buffer high watermark).
  var maxQueuedOutputBytes = 256 << 10
  /// Request bytes all calls of the process may hold while they are routed (their first message);
  /// past it new bytes end their call RESOURCE_EXHAUSTED.
  var maxRoutingBytes = 64 << 20
  /// Bytes of large first messages (past half a stream window: the gateway's server takes them
  /// whole) one client connection may have the gateway hold at once; past it a new one ends its
  /// call RESOURCE_EXHAUSTED. One such message is always taken when the connection has none.
  var maxLargeRequestBytesPerConnection = 16 << 20
  /// The same for all connections of the process together.
  var maxLargeRequestBytes = 64 << 20

  init() {}

  /// The relay's defaults.
  static let defaults = RelayLimits()
}
