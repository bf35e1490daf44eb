// relay-framing-probe: a measurement instrument, not a relay to deploy. It answers one question: is
// NIOHTTP2Handler used WITHOUT a stream multiplexer (every frame of a connection delivered to one
// handler) cheaper per relayed call than the gateway's hand-written framing (Sources/Gateway/Relay/Wire)?
// scripts/bench-framing measures both in front of the same domain.
//
// What it does: listens with h2c prior knowledge; every stream a client opens is relayed frame by frame
// on one upstream HTTP/2 connection per event loop (opened on first use): HEADERS, DATA, trailers,
// END_STREAM and RST_STREAM both ways, stream ids mapped (client connection + id <-> upstream id).
// Frames are written as they are read and flushed once per read (`channelReadComplete`). DATA is
// credited back to its sender on its stream once a quarter of the stream window has gathered, and
// each connection's receive window is raised to 16 MiB and topped up when a quarter of it
// is used, as the hand-written relay does (NIOHTTP2Handler does neither without a multiplexer).
//
// What it does NOT do, so its cost is a lower bound on that of a relay built on NIOHTTP2Handler: no
// routing by intent class (it never looks into a request), no authentication (the domain checks the
// token), no end-to-end flow control (a sender is credited whether or not its bytes have left on the
// other side; NIOHTTP2Handler buffers what the other side's window does not take yet), no limits or
// abuse defences beyond NIOHTTP2Handler's own, no second upstream connection when the first is full
// (NIOHTTP2Handler queues streams past the upstream's MAX_CONCURRENT_STREAMS), no metrics, no logs,
// no graceful shutdown. Any error NIOHTTP2Handler reports, but a write refused on one stream, closes
// the connection.
//
//   relay-framing-probe --port P --upstream 127.0.0.1:Q [--event-loops 1]
// Prints `relay-framing-probe serving on 127.0.0.1:<port>` once listening (--port 0: a free port).
import NIOCore
import NIOHTTP2
import NIOPosix

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

@main
enum RelayFramingProbe {
  static func main() throws {
    guard let options = ProbeOptions(arguments: Array(CommandLine.arguments.dropFirst())) else {
      print("usage: relay-framing-probe --port P --upstream HOST:PORT [--event-loops N]")
      exit(2)
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: options.eventLoops)
    let relays = LoopRelays(group: group, upstreamHost: options.upstreamHost, upstreamPort: options.upstreamPort)
    let server = try ServerBootstrap(group: group)
      .serverChannelOption(.backlog, value: 1024)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          let relay = relays.relay(on: channel.eventLoop)
          let http2 = NIOHTTP2Handler(mode: .server, initialSettings: FramePeer.settings)
          try channel.pipeline.syncOperations.addHandler(http2)
          try channel.pipeline.syncOperations.addHandler(FramePeer(side: .client, relay: relay))
        }
      }
      .bind(host: "127.0.0.1", port: options.port).wait()
    print("relay-framing-probe serving on 127.0.0.1:\(server.localAddress?.port ?? options.port)")
    fflush(nil)  // standard output is a file when a script starts the probe
    try server.closeFuture.wait()
  }
}

/// The probe's flags: `--port P --upstream HOST:PORT [--event-loops N]`.
struct ProbeOptions {
  var port = 0
  var upstreamHost = ""
  var upstreamPort = 0
  var eventLoops = 1

  /// nil when a flag is unknown, lacks its value or has a malformed one, or `--upstream` is missing.
  init?(arguments: [String]) {
    var index = 0
    while index < arguments.count {
      guard index + 1 < arguments.count else { return nil }
      let value = arguments[index + 1]
      switch arguments[index] {
      case "--port":
        guard let port = Int(value), port >= 0 else { return nil }
        self.port = port
      case "--event-loops":
        guard let loops = Int(value), loops > 0 else { return nil }
        eventLoops = loops
      case "--upstream":
        guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]) else {
          return nil
        }
        upstreamHost = String(value[..<colon])
        upstreamPort = port
      default:
        return nil
      }
      index += 2
    }
    guard upstreamPort > 0 else { return nil }
  }
}

/// One `LoopRelay` per event loop of the group, made up front.
///
/// @unchecked Sendable: the dictionary is built in `init` and never mutated; its values are not
/// Sendable, but `relay(on:)` hands a loop's relay out only on that loop (a precondition), so no
/// relay is ever used from two threads.
final class LoopRelays: @unchecked Sendable {
  private let relays: [ObjectIdentifier: LoopRelay]

  init(group: any EventLoopGroup, upstreamHost: String, upstreamPort: Int) {
    var relays: [ObjectIdentifier: LoopRelay] = [:]
    for loop in group.makeIterator() {
      relays[ObjectIdentifier(loop)] = LoopRelay(
        eventLoop: loop, upstreamHost: upstreamHost, upstreamPort: upstreamPort)
    }
    self.relays = relays
  }

  /// The relay of `loop`; call on `loop`.
  func relay(on loop: any EventLoop) -> LoopRelay {
    loop.preconditionInEventLoop()
    return relays[ObjectIdentifier(loop)]!
  }
}
