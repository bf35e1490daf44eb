import Logging
import NIOCore
import NIOEmbedded
import NIOHPACK
import Testing

@testable import Gateway

/// A client's connection to the relay, driven through `EmbeddedChannel` on an embedded event loop:
/// frames in, frames out, time advanced by hand — the defences without a socket or a clock.
@Suite("Gateway relay: one connection, embedded")
struct RelayConnectionTests {
  struct Frame {
    var type: UInt8
    var flags: UInt8
    var stream: UInt32
    var payload: [UInt8]
  }

  /// Counts the reads the relay passes on toward the socket.
  final class ReadCounter: ChannelOutboundHandler {
    typealias OutboundIn = ByteBuffer
    var reads = 0

    func read(context: ChannelHandlerContext) {
      reads += 1
      context.read()
    }
  }

  /// The relay's server side of one connection, with no upstream reachable.
  final class Embedded {
    let loop = EmbeddedEventLoop()
    let channel: EmbeddedChannel
    let readCounter = ReadCounter()
    private var encoder = HPACKEncoder(allocator: ByteBufferAllocator())
    private var decoder = HPACKDecoder(allocator: ByteBufferAllocator())
    private var unread: [UInt8] = []

    init(limits: RelayLimits = .defaults) throws {
      let directory = try DomainDirectory(endpoints: [], refreshInterval: .seconds(60), logger: Logger(label: "test"))
      let router = RelayRouter(
        directory: directory, deadline: CallDeadline(defaultTimeout: .seconds(10), maximumTimeout: .seconds(60)),
        local: .closed, maxRequestMessageBytes: 4 << 20)
      let state = RelayLoopState(eventLoop: loop, router: router, metrics: RelayMetrics(metrics: nil), limits: limits)
      channel = EmbeddedChannel(handlers: [readCounter, RelayConnection(role: .server, state: state)], loop: loop)
      try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
    }

    static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8] = []) -> [UInt8] {
      let length = payload.count
      return [UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF), type, flags]
        + withUnsafeBytes(of: stream.bigEndian, Array.init) + payload
    }

    /// The client preface and an empty SETTINGS frame.
    func handshake() throws {
      try send(Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + Self.frame(type: 4, stream: 0))
    }

    func send(_ bytes: [UInt8]) throws {
      guard channel.isActive else { return }
      try channel.writeInbound(ByteBuffer(bytes: bytes))
      loop.run()
    }

    func headers(_ list: [(String, String)], stream: UInt32, endStream: Bool = false) throws -> [UInt8] {
      var block = ByteBuffer()
      try encoder.encode(headers: HPACKHeaders(list), to: &block)
      return Self.frame(
        type: 1, flags: 0x4 | (endStream ? 1 : 0), stream: stream, payload: Array(block.readableBytesView))
    }

    func decode(_ block: [UInt8]) throws -> HPACKHeaders {
      var buffer = ByteBuffer(bytes: block)
      return try decoder.decodeHeaders(from: &buffer)
    }

    /// What the relay wrote since the last call, as frames.
    func written() throws -> [Frame] {
      loop.run()
      while let buffer = try channel.readOutbound(as: ByteBuffer.self) { unread += buffer.readableBytesView }
      var frames: [Frame] = []
      while unread.count >= 9 {
        let length = Int(unread[0]) << 16 | Int(unread[1]) << 8 | Int(unread[2])
        guard unread.count >= 9 + length else { break }
        let stream = unread[5..<9].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0x7FFF_FFFF
        frames.append(
          Frame(type: unread[3], flags: unread[4], stream: stream, payload: Array(unread[9..<(9 + length)])))
        unread.removeFirst(9 + length)
      }
      return frames
    }

    func advance(by amount: TimeAmount) {
      loop.advanceTime(by: amount)
      loop.run()
    }
  }

  static let resolve: [(String, String)] = [
    (":method", "POST"), (":scheme", "http"), (":path", "/intentmesh.v1.IntentsExtension/Resolve"),
    (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers"),
  ]

  static func goAwayCode(_ frames: [Frame]) -> UInt32? {
    guard let goAway = frames.last(where: { $0.type == 7 }) else { return nil }
    return goAway.payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }

  @Test("the handshake: the relay's SETTINGS and connection window first, then the ACK of the client's")
  func handshake() throws {
    let relay = try Embedded()
    try relay.handshake()
    let frames = try relay.written()
    #expect(frames.map(\.type) == [4, 8, 4])
    #expect(frames[2].flags == 1)
    #expect(relay.channel.isActive)
  }

  @Test("resets within the budget are served; one past it ends the connection; the budget refills")
  func resetBudget() throws {
    var limits = RelayLimits()
    limits.maxGlitches = 10
    limits.glitchWindow = .seconds(10)
    let relay = try Embedded(limits: limits)
    try relay.handshake()
    var stream: UInt32 = 1
    func openAndReset() throws {
      try relay.send(
        try relay.headers(Self.resolve, stream: stream)
          + Embedded.frame(type: 3, stream: stream, payload: [0, 0, 0, 8]))
      stream += 2
    }
    for _ in 0..<10 { try openAndReset() }
    #expect(Self.goAwayCode(try relay.written()) == nil)
    relay.advance(by: .seconds(5))  // five come back
    for _ in 0..<5 { try openAndReset() }
    #expect(Self.goAwayCode(try relay.written()) == nil)
    try openAndReset()
    #expect(Self.goAwayCode(try relay.written()) == 0xB)
    #expect(!relay.channel.isActive)
  }

  @Test("a PING flood past the budget: GOAWAY ENHANCE_YOUR_CALM, after the answers to those within it")
  func pingBudget() throws {
    var limits = RelayLimits()
    limits.maxControlFrames = 20
    let relay = try Embedded(limits: limits)
    try relay.handshake()  // its SETTINGS is a control frame too
    _ = try relay.written()
    let ping = Embedded.frame(type: 6, stream: 0, payload: [1, 2, 3, 4, 5, 6, 7, 8])
    try relay.send(Array((0..<30).map { _ in ping }.joined()))
    let frames = try relay.written()
    #expect(frames.filter { $0.type == 6 }.count == 19)
    #expect(Self.goAwayCode(frames) == 0xB)
  }

  @Test("a malformed request: RST_STREAM PROTOCOL_ERROR on its stream, the connection goes on")
  func malformedRequest() throws {
    let relay = try Embedded()
    try relay.handshake()
    _ = try relay.written()
    try relay.send(try relay.headers(Self.resolve + [("Upper", "1")], stream: 1))
    let frames = try relay.written()
    #expect(frames.count == 1)
    #expect(frames.first?.type == 3 && frames.first?.stream == 1 && frames.first?.payload == [0, 0, 0, 1])
    #expect(relay.channel.isActive)
  }

  @Test("no preface within the handshake timeout: closed")
  func handshakeTimeout() throws {
    let relay = try Embedded()
    relay.advance(by: .seconds(9))
    #expect(relay.channel.isActive)
    relay.advance(by: .seconds(2))
    #expect(!relay.channel.isActive)
  }

  @Test("no stream for the idle timeout: GOAWAY NO_ERROR, then closed")
  func idleTimeout() throws {
    let relay = try Embedded()
    try relay.handshake()
    _ = try relay.written()
    relay.advance(by: .seconds(299))
    #expect(relay.channel.isActive)
    relay.advance(by: .seconds(2))
    #expect(Self.goAwayCode(try relay.written()) == 0)
    #expect(!relay.channel.isActive)
  }

  @Test("a first message that stops short: DEADLINE_EXCEEDED after the timeout, and the stream reset")
  func firstMessageTimeout() throws {
    let relay = try Embedded()
    try relay.handshake()
    _ = try relay.written()
    try relay.send(
      try relay.headers(Self.resolve, stream: 1) + Embedded.frame(type: 0, stream: 1, payload: [0, 0, 0, 0, 100, 1, 2]))
    relay.advance(by: .seconds(4))
    #expect(try relay.written().isEmpty)
    relay.advance(by: .seconds(2))
    let frames = try relay.written()
    let trailers = try #require(frames.first { $0.type == 1 && $0.stream == 1 })
    #expect(trailers.flags & 1 == 1)
    #expect(try relay.decode(trailers.payload).first(name: "grpc-status") == "4")
    #expect(frames.contains { $0.type == 3 && $0.stream == 1 && $0.payload == [0, 0, 0, 0] })
    #expect(relay.channel.isActive)
  }

  @Test("a peer that leaves the output unread: nothing more is read, and after the timeout it is closed")
  func stalledPeer() throws {
    let relay = try Embedded()
    try relay.handshake()
    _ = try relay.written()
    relay.channel.isWritable = false
    relay.channel.pipeline.fireChannelWritabilityChanged()
    let before = relay.readCounter.reads
    relay.channel.read()
    #expect(relay.readCounter.reads == before)
    relay.advance(by: .seconds(29))
    #expect(relay.channel.isActive)
    relay.advance(by: .seconds(2))
    #expect(!relay.channel.isActive)
  }

  @Test("a socket that drains again: reading resumes")
  func drainedPeer() throws {
    let relay = try Embedded()
    try relay.handshake()
    relay.channel.isWritable = false
    relay.channel.pipeline.fireChannelWritabilityChanged()
    let before = relay.readCounter.reads
    relay.channel.read()
    relay.channel.isWritable = true
    relay.channel.pipeline.fireChannelWritabilityChanged()
    #expect(relay.readCounter.reads == before + 1)
    relay.advance(by: .seconds(60))
    #expect(relay.channel.isActive)
  }
}
