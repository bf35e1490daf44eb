/// The HTTP/2 settings of the relay, both sides.
enum RelaySettings {
  /// Streams a client may open at once on one connection to the gateway (gRPC clients open many).
  static let maxConcurrentStreams = 1000
  /// Each stream's flow-control window, both ways: a 1 MiB message crosses in one window.
  static let initialWindowSize = 1 << 20
  /// Each connection's flow-control window, both ways: room for many streams' windows at once.
  static let connectionWindow = 16 << 20
  /// The largest frame a peer may send the relay (HTTP/2's default).
  static let maxFrameSize = 1 << 14
  /// The largest header list the relay takes.
  static let maxHeaderListSize = 1 << 16
}
