internal import ArgumentParser
internal import ServiceKit

/// The command line of the relay's limits (`RelayLimits`); a flag wins over its environment
/// variable, which wins over the default.
struct RelayLimitOptions: ParsableArguments {
  @Option(
    help: "Connections served at once; more are closed as accepted (env INTENTMESH_MAX_CONNECTIONS; default 4096).")
  var maxConnections: Int?

  @Option(help: "Streams one connection may have open (env INTENTMESH_MAX_CONCURRENT_STREAMS; default 1000).")
  var maxConcurrentStreams: Int?

  @Option(
    help: "Largest request header list in bytes (env INTENTMESH_MAX_HEADER_LIST_BYTES; default 16384).")
  var maxHeaderListBytes: Int?

  @Option(
    help:
      "Resets, stream errors and empty frames one connection may cause per 30 s before GOAWAY ENHANCE_YOUR_CALM (env INTENTMESH_MAX_GLITCHES; default 200)."
  )
  var maxGlitches: Int?

  @Option(
    help:
      "PING, SETTINGS and PRIORITY frames one connection may send per 10 s (env INTENTMESH_MAX_CONTROL_FRAMES; default 1000)."
  )
  var maxControlFrames: Int?

  @Option(
    help:
      "Seconds a call may take to send the message it is routed by (env INTENTMESH_FIRST_MESSAGE_TIMEOUT_SECONDS; default 5)."
  )
  var firstMessageTimeoutSeconds: Double?

  @Option(
    help:
      "Seconds a connection may take to send the HTTP/2 preface (env INTENTMESH_HANDSHAKE_TIMEOUT_SECONDS; default 10)."
  )
  var handshakeTimeoutSeconds: Double?

  @Option(help: "Seconds a connection may stay without a stream (env INTENTMESH_IDLE_TIMEOUT_SECONDS; default 300).")
  var idleTimeoutSeconds: Double?

  @Option(
    help:
      "Seconds a peer may leave the gateway's output unread before it is disconnected (env INTENTMESH_STALLED_WRITE_TIMEOUT_SECONDS; default 30)."
  )
  var stalledWriteTimeoutSeconds: Double?

  @Option(
    help:
      "Request bytes all calls may hold while they are routed (env INTENTMESH_MAX_ROUTING_BYTES; default 67108864).")
  var maxRoutingBytes: Int?

  @Option(
    help:
      "Bytes of large request messages (over 512 KiB) one connection may have the gateway hold at once (env INTENTMESH_MAX_LARGE_REQUEST_BYTES_PER_CONNECTION; default 16777216)."
  )
  var maxLargeRequestBytesPerConnection: Int?

  @Option(
    help:
      "Bytes of large request messages all connections may have the gateway hold at once (env INTENTMESH_MAX_LARGE_REQUEST_BYTES; default 67108864)."
  )
  var maxLargeRequestBytes: Int?

  init() {}

  /// The limits these options and `environment` give.
  func limits(environment: [String: String]) throws -> RelayLimits {
    var limits = RelayLimits()
    let lookup = OptionLookup(environment)
    /// "max glitches" for INTENTMESH_MAX_GLITCHES.
    func name(_ key: String) -> String { key.dropFirst(11).lowercased().split(separator: "_").joined(separator: " ") }
    func count(_ flag: Int?, _ key: String, _ value: inout Int, minimum: Int = 1) throws {
      if let number = try lookup.integer(flag, key, name(key), in: minimum...Int.max) { value = number }
    }
    func seconds(_ flag: Double?, _ key: String, _ value: inout Duration) throws {
      if let number = try lookup.seconds(flag, key, name(key), in: 0.001...86_400) {
        value = .milliseconds(Int64(number * 1000))
      }
    }
    try count(maxConnections, "INTENTMESH_MAX_CONNECTIONS", &limits.maxConnections)
    try count(maxConcurrentStreams, "INTENTMESH_MAX_CONCURRENT_STREAMS", &limits.maxConcurrentStreams)
    try count(maxHeaderListBytes, "INTENTMESH_MAX_HEADER_LIST_BYTES", &limits.maxHeaderListSize, minimum: 1024)
    try count(maxGlitches, "INTENTMESH_MAX_GLITCHES", &limits.maxGlitches)
    try count(maxControlFrames, "INTENTMESH_MAX_CONTROL_FRAMES", &limits.maxControlFrames)
    try count(maxRoutingBytes, "INTENTMESH_MAX_ROUTING_BYTES", &limits.maxRoutingBytes, minimum: 1 << 20)
    try count(
      maxLargeRequestBytesPerConnection, "INTENTMESH_MAX_LARGE_REQUEST_BYTES_PER_CONNECTION",
      &limits.maxLargeRequestBytesPerConnection, minimum: 1 << 20)
    try count(
      maxLargeRequestBytes, "INTENTMESH_MAX_LARGE_REQUEST_BYTES", &limits.maxLargeRequestBytes, minimum: 1 << 20)
    try seconds(firstMessageTimeoutSeconds, "INTENTMESH_FIRST_MESSAGE_TIMEOUT_SECONDS", &limits.firstMessageTimeout)
    try seconds(handshakeTimeoutSeconds, "INTENTMESH_HANDSHAKE_TIMEOUT_SECONDS", &limits.handshakeTimeout)
    try seconds(idleTimeoutSeconds, "INTENTMESH_IDLE_TIMEOUT_SECONDS", &limits.idleTimeout)
    try seconds(stalledWriteTimeoutSeconds, "INTENTMESH_STALLED_WRITE_TIMEOUT_SECONDS", &limits.stalledWriteTimeout)
    return limits
  }
}
