internal import NIOHTTP2

/// The HTTP/2 settings of the relay, both sides.
package enum RelaySettings {
  /// Streams a client may open at once on one connection to the gateway (NIOHTTP2 advertises 100
  /// unless told otherwise; gRPC clients open more).
  package static let maxConcurrentStreams = 1000
  /// Each stream's flow-control window, both ways: a 1 MiB message crosses in one window.
  package static let initialWindowSize = 1 << 20
  /// The largest frame either side may send.
  package static let maxFrameSize = 1 << 14

  static func connection(mode: NIOHTTP2Handler.ParserMode) -> NIOHTTP2Handler.ConnectionConfiguration {
    var configuration = NIOHTTP2Handler.ConnectionConfiguration()
    configuration.initialSettings = [
      HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
      HTTP2Setting(parameter: .initialWindowSize, value: initialWindowSize),
      HTTP2Setting(parameter: .maxFrameSize, value: maxFrameSize),
      HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
    ]
    if mode == .client { configuration.initialSettings.append(HTTP2Setting(parameter: .enablePush, value: 0)) }
    // Many streams come and go on one connection; clients that cancel in bursts are not attackers.
    configuration.maximumRecentlyResetStreams = 4096
    return configuration
  }

  static func stream() -> NIOHTTP2Handler.StreamConfiguration {
    var configuration = NIOHTTP2Handler.StreamConfiguration()
    configuration.targetWindowSize = initialWindowSize
    configuration.outboundBufferSizeHighWatermark = 1 << 20
    configuration.outboundBufferSizeLowWatermark = 1 << 18
    configuration.streamResetFrameRateLimit.maximumCount = 100_000
    configuration.streamErrorRateLimit.maximumCount = 100_000
    return configuration
  }
}
