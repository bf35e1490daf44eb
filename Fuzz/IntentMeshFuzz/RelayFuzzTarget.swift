import IntentMeshProtos
import Logging
import NIOCore
import NIOEmbedded
import ProtoJSON
import ServiceKit
import SwiftProtobuf

@testable import Gateway

/// The relay's HTTP/2 connections on embedded channels, its web side included: a client's
/// connection (after the preface and SETTINGS the harness sends) and every upstream connection the
/// relay opens, fed the input's records in turn — bytes from the client, bytes from the newest upstream, or time passing — with
/// what the relay writes drained after each. A crash, a trap or a leak is a finding; any answer is
/// not.
///
/// Input: records of [kind][length: 2 bytes][bytes]; kind % 3: 0 client bytes, 1 upstream bytes,
/// 2 advance the clock by `length` milliseconds.
enum RelayFuzzTarget {
  nonisolated(unsafe) static var router: RelayRouter?
  /// The relay's event log would print a line per refused input: only what is critical.
  static let quiet: Logger = {
    var logger = Logger(label: "fuzz.relay")
    logger.logLevel = .critical
    return logger
  }()

  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
  static let upstreamSettings: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 0, 0]

  static func prepare() {
    // One domain, at an address the harness dials to an embedded channel: calls it declares go
    // upstream (and the input's upstream records answer them); the rest go to the gateway's own
    // server, which is closed here (UNAVAILABLE).
    let domain = DomainEndpoint(host: "127.0.0.1", port: 9)
    let directory = try! DomainDirectory(
      endpoints: [domain], refreshInterval: .seconds(3600), logger: Logger(label: "fuzz"))
    directory.update(domain) { status in
      status.health = "SERVING"
      status.manifest = .with {
        $0.appName = "UnicornChat"
        $0.intents = ["INSendMessageIntent", "INSearchForMessagesIntent"].map { name in .with { $0.intentClass = name }
        }
        $0.appServices = ["intentmesh.messaging.v1.MessagingApp"]
      }
    }
    // With a web side, as the executable has it: Connect and gRPC-Web streams are carried as gRPC
    // (`WebCallTranslation`), pages and preflights answered.
    let schema = ProtoSchema(files: try! ReflectionIndex.embeddedFiles())
    router = RelayRouter(
      directory: directory, deadline: CallDeadline(defaultTimeout: .seconds(10), maximumTimeout: .seconds(60)),
      local: .closed, maxRequestMessageBytes: 4 << 20,
      web: (WebResponder(schema: { schema }, cors: CORSPolicy(origins: ["*"])), .seconds(10)))
  }

  static func run(_ bytes: [UInt8]) {
    guard let router else { return }
    let loop = EmbeddedEventLoop()
    let state = RelayLoopState(eventLoop: loop, router: router, metrics: RelayMetrics(metrics: nil), logger: quiet)
    var upstreams: [EmbeddedChannel] = []
    state.pool.dial = { connection, _ in
      let channel = EmbeddedChannel(handler: connection, loop: loop)
      _ = channel.connect(to: try! SocketAddress(ipAddress: "127.0.0.1", port: 9))
      feed(channel, upstreamSettings)
      upstreams.append(channel)
    }
    let client = EmbeddedChannel(handler: RelayConnection(role: .server, state: state), loop: loop)
    _ = client.connect(to: try! SocketAddress(ipAddress: "127.0.0.1", port: 9))
    feed(client, preface)

    var position = 0
    while position + 3 <= bytes.count {
      let kind = bytes[position] % 3
      let length = Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
      let chunk = Array(bytes[(position + 3)..<min(position + 3 + length, bytes.count)])
      position += 3 + length
      switch kind {
      case 0: feed(client, chunk)
      case 1: if let upstream = upstreams.last { feed(upstream, chunk) }
      default: loop.advanceTime(by: .milliseconds(Int64(length)))
      }
      loop.run()
      drain(client)
      upstreams.forEach(drain)
    }
    // Everything closes; the loop's pending timers run out.
    _ = client.close()
    for upstream in upstreams { _ = upstream.close() }
    loop.advanceTime(by: .seconds(3600))
    loop.run()
    drain(client)
    upstreams.forEach(drain)
    try? loop.syncShutdownGracefully()
  }

  static func feed(_ channel: EmbeddedChannel, _ bytes: [UInt8]) {
    guard channel.isActive, !bytes.isEmpty else { return }
    do { try channel.writeInbound(ByteBuffer(bytes: bytes)) } catch { _ = channel.close() }
  }

  static func drain(_ channel: EmbeddedChannel) {
    while (try? channel.readOutbound(as: ByteBuffer.self)) != nil {}
    while (try? channel.readInbound(as: ByteBuffer.self)) != nil {}
  }
}
