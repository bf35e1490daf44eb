import Foundation
import GRPCCore
@testable import Gateway
import IntentMeshProtos
import NIOHPACK
import SwiftProtobuf
import Testing

/// The public port under attack: each test mounts one of the known HTTP/2 attacks on the relay
/// from a raw socket and checks the defence — GOAWAY ENHANCE_YOUR_CALM, a stream error, a gRPC
/// status, a timeout — and that the relay goes on serving everyone else.
@Suite("Gateway relay: defences of the public port", .serialized)
struct RelayDefenceTests {
  typealias Harness = TestGateway
  typealias Raw = RawHTTP2Connection
  static let requestHeaders = RelayWireTests.requestHeaders

  static func horn(delay: Duration = .zero) -> FakeDomain {
    FakeDomain(appName: "HornChat", intents: ["INHornIntent"], resolveDelay: delay)
  }

  /// The error code of the GOAWAY that ends `frames`, if one does.
  static func goAwayCode(_ frames: [Raw.Frame]) -> UInt32? {
    guard let goAway = frames.last(where: { $0.type == 7 }) else { return nil }
    return goAway.payload[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }

  /// Every frame until the relay closes the connection.
  static func framesUntilClosed(_ connection: Raw) throws -> [Raw.Frame] {
    var frames: [Raw.Frame] = []
    while let frame = try connection.readFrame() { frames.append(frame) }
    return frames
  }

  static func resolveStillServed(_ harness: Harness) async throws {
    let answer = try await harness.extensionClient.resolve(
      .with {
        $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent")
      })
    #expect(answer.complete)
  }

  /// The gRPC status and message of the trailers-only answer on `stream`.
  static func trailersOnly(_ frames: [Raw.Frame], stream: UInt32, on connection: Raw) throws -> (String?, String?) {
    guard let block = frames.first(where: { $0.stream == stream && $0.type == 1 }) else { return (nil, nil) }
    let headers = try connection.decode(block.payload)
    return (headers.first(name: "grpc-status"), headers.first(name: "grpc-message"))
  }

  @Test("rapid reset (CVE-2023-44487): streams opened and reset at once end in GOAWAY ENHANCE_YOUR_CALM")
  func rapidReset() async throws {
    try await Harness.run(fakes: [Self.horn()]) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      var bytes: [UInt8] = []
      let gatewayMethod = Self.requestHeaders.map {
        $0.0 == ":path" ? ($0.0, "/intentmesh.gateway.v1.Gateway/ListRoutes") : $0
      }
      for index in 0..<400 {
        let stream = UInt32(2 * index + 1)
        bytes += Raw.frame(type: 1, flags: 0x4, stream: stream, payload: try connection.headerBlock(gatewayMethod))
        bytes += Raw.frame(type: 3, stream: stream, payload: [0, 0, 0, 8])
      }
      connection.write(bytes)
      let frames = try await offThePool { try Self.framesUntilClosed(connection) }
      #expect(Self.goAwayCode(frames) == 0xB)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("empty CONTINUATION frames: a header block of more than the allowed number ends the connection")
  func continuationFlood() async throws {
    try await Harness.run(fakes: [Self.horn()]) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      var bytes = Raw.frame(type: 1, stream: 1, payload: try connection.headerBlock(Self.requestHeaders))
      for _ in 0..<1000 { bytes += Raw.frame(type: 9, stream: 1) }
      let frames = try await offThePool { [bytes] in
        _ = connection.writeWhileRead(bytes, within: 5)
        return try Self.framesUntilClosed(connection)
      }
      #expect(Self.goAwayCode(frames) == 0xB)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("a header block larger than four times the header list limit ends the connection")
  func oversizedHeaderBlock() async throws {
    var limits = RelayLimits()
    limits.maxContinuationFrames = 100
    try await Harness.run(fakes: [Self.horn()], limits: limits) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      var bytes = Raw.frame(type: 1, stream: 1, payload: try connection.headerBlock(Self.requestHeaders))
      for _ in 0..<6 { bytes += Raw.frame(type: 9, stream: 1, payload: [UInt8](repeating: 0x40, count: 16_000)) }
      let frames = try await offThePool { [bytes] in
        _ = connection.writeWhileRead(bytes, within: 5)
        return try Self.framesUntilClosed(connection)
      }
      #expect(Self.goAwayCode(frames) == 0xB)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("PING and SETTINGS floods end in GOAWAY ENHANCE_YOUR_CALM", arguments: [6 as UInt8, 4])
  func controlFrameFlood(type: UInt8) async throws {
    var limits = RelayLimits()
    limits.maxControlFrames = 100
    try await Harness.run(fakes: [Self.horn()], limits: limits) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      let frame = Raw.frame(type: type, stream: 0, payload: type == 6 ? [UInt8](repeating: 7, count: 8) : [])
      let frames = try await offThePool {
        _ = connection.writeWhileRead(repeating: frame, times: 500, within: 5)
        return try Self.framesUntilClosed(connection)
      }
      #expect(Self.goAwayCode(frames) == 0xB)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("a peer that sends but never reads is read no further, then disconnected")
  func peerThatDoesNotRead() async throws {
    var limits = RelayLimits()
    limits.maxControlFrames = 10_000_000
    limits.stalledWriteTimeout = .milliseconds(500)
    try await Harness.run(fakes: [Self.horn()], limits: limits) { harness in
      let connection = try Raw(port: harness.port, receiveBuffer: 4096)
      connection.start()
      // Up to 256 MiB of PINGs, each answered with an ACK the peer never reads: once the socket
      // buffers hold what they can, the relay stops reading and then lets the connection go, however
      // fast or slow it is at answering.
      let ping = Raw.frame(type: 6, stream: 0, payload: [UInt8](repeating: 1, count: 8))
      let chunk = Array(repeating: ping, count: (1 << 20) / ping.count).flatMap { $0 }
      let (taken, closed) = try await offThePool {
        (connection.writeWhileRead(repeating: chunk, times: 256, within: 60), connection.discardUntilClosed(within: 10))
      }
      #expect(taken < 256 << 20, "the relay read every PING it could not answer")
      #expect(closed)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test(
    "malformed requests end their stream with RST_STREAM PROTOCOL_ERROR, and other calls go on",
    arguments: [
      ("an uppercase field name", [("X-Upper", "1")]),
      ("a connection-specific field", [("connection", "keep-alive")]),
      ("te other than trailers", [("te", "gzip")]),
      ("a pseudo-header after a regular field", [(":authority", "again")]),
      ("a NUL in a value", [("x-note", "a\u{0}b")]),
    ] as [(String, [(String, String)])])
  func malformedHeaders(name: String, extra: [(String, String)]) async throws {
    let horn = Self.horn(delay: .milliseconds(800))
    try await Harness.run(fakes: [horn]) { harness in
      // Another client's call is under way on the same upstream connection.
      let other = Task {
        try await harness.extensionClient.resolve(
          .with {
            $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent", identifier: "other")
          })
      }
      try await Task.sleep(for: .milliseconds(200))
      let connection = try Raw(port: harness.port)
      connection.start()
      let headers = Self.requestHeaders.filter { $0.0 != "te" || extra.first?.0 != "te" } + extra
      connection.write(Raw.frame(type: 1, flags: 0x4, stream: 1, payload: try connection.headerBlock(headers)))
      connection.write(
        Raw.frame(type: 0, flags: 0x1, stream: 1, payload: try RelayWireTests.resolveMessage(identifier: "bad")))
      let frames = try await offThePool {
        try connection.readFrames { $0.stream == 1 && ($0.type == 3 || $0.type == 1) }
      }
      #expect(frames.last?.type == 3, "\(name): answered \(frames.last.map { "\($0)" } ?? "nothing")")
      #expect(frames.last?.payload == [0, 0, 0, 1], "\(name)")
      // The same connection serves a good call next.
      connection.write(
        Raw.frame(type: 1, flags: 0x4, stream: 3, payload: try connection.headerBlock(Self.requestHeaders)))
      connection.write(
        Raw.frame(type: 0, flags: 0x1, stream: 3, payload: try RelayWireTests.resolveMessage(identifier: "good")))
      let good = try await offThePool { try connection.readFrames(until: RelayWireTests.isEnd(of: 3)) }
      let answer = try RelayWireTests.answer(good, stream: 3, on: connection)
      #expect(answer.grpcStatus == "0")
      #expect(try await other.value.resolvedIntent.identifier == "other")
      #expect(!horn.seen.calls.isEmpty)
    }
  }

  @Test("a header list above the limit: RESOURCE_EXHAUSTED, nothing forwarded")
  func headerListTooLarge() async throws {
    let horn = Self.horn()
    try await Harness.run(fakes: [horn]) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      let headers = Self.requestHeaders + [("x-large", String(repeating: "a", count: 17_000))]
      let block = try connection.headerBlock(headers)
      let half = block.count / 2
      connection.write(Raw.frame(type: 1, stream: 1, payload: Array(block[..<half])))
      connection.write(Raw.frame(type: 9, flags: 0x4, stream: 1, payload: Array(block[half...])))
      let frames = try await offThePool { try connection.readFrames { $0.stream == 1 && $0.type == 1 } }
      let (status, message) = try Self.trailersOnly(frames, stream: 1, on: connection)
      #expect(status == "8")
      #expect(message?.contains("16384") == true)
      #expect(horn.seen.calls.isEmpty)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test(
    "a message the relay can judge from its prefix is answered by the relay",
    arguments: [
      ("a 4 GiB length prefix", [0, 0xFF, 0xFF, 0xFF, 0xFF] as [UInt8], "8"),
      ("compressed without grpc-encoding", [1, 0, 0, 0, 2, 0x0A, 0], "13"),
    ])
  func judgedFromThePrefix(name: String, prefix: [UInt8], status: String) async throws {
    let horn = Self.horn()
    try await Harness.run(fakes: [horn]) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      connection.write(
        Raw.frame(type: 1, flags: 0x4, stream: 1, payload: try connection.headerBlock(Self.requestHeaders)))
      connection.write(Raw.frame(type: 0, flags: 0x1, stream: 1, payload: prefix))
      let frames = try await offThePool { try connection.readFrames { $0.stream == 1 && $0.type == 1 } }
      #expect(try Self.trailersOnly(frames, stream: 1, on: connection).0 == status, "\(name)")
      #expect(horn.seen.calls.isEmpty)
      try await Self.resolveStillServed(harness)
    }
  }

  /// A framed Resolve of `size` bytes in all (prefix included): the usual request, and the rest an
  /// unknown field (15) the gateway's server keeps and skips.
  static func largeResolveMessage(identifier: String, size: Int) throws -> [UInt8] {
    let base = Array(try RelayWireTests.resolveMessage(identifier: identifier).dropFirst(5))
    func varint(_ value: Int) -> [UInt8] {
      var (value, out) = (value, [UInt8]())
      repeat {
        out.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0))
        value >>= 7
      } while value > 0
      return out
    }
    var padding = size - 5 - base.count - 1
    while 5 + base.count + 1 + varint(padding).count + padding > size { padding -= 1 }
    let message = base + [15 << 3 | 2] + varint(padding) + [UInt8](repeating: 0, count: padding)
    return [0] + withUnsafeBytes(of: UInt32(message.count).bigEndian, Array.init) + message
  }

  /// Opens `stream` with the request headers and sends `bytes` of its body in DATA frames of 16 KiB.
  static func send(_ bytes: ArraySlice<UInt8>, on stream: UInt32, of connection: Raw, end: Bool) throws {
    connection.write(
      Raw.frame(type: 1, flags: 0x4, stream: stream, payload: try connection.headerBlock(requestHeaders)))
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
      let next = min(offset + 16_384, bytes.endIndex)
      let last = next == bytes.endIndex
      connection.write(
        Raw.frame(type: 0, flags: last && end ? 0x1 : 0, stream: stream, payload: Array(bytes[offset..<next])))
      offset = next
    }
  }

  @Test(
    "large first messages (past half a stream window): past a connection's budget RESOURCE_EXHAUSTED naming it; another connection has its own; a call that ends gives its bytes back"
  )
  func largeRequestBudget() async throws {
    var limits = RelayLimits()
    limits.maxLargeRequestBytesPerConnection = 1 << 20
    let horn = Self.horn()
    try await Harness.run(fakes: [horn], limits: limits) { harness in
      let message = try Self.largeResolveMessage(identifier: "large", size: 700_000)
      let first = try Raw(port: harness.port)
      first.start()
      // Held past half a window, each is a large message for the gateway's server: the first
      // takes 700,000 of the connection's 1 MiB, the second finds no room.
      // Written off the concurrency pool: a blocking write there would hold one of its few threads.
      try await offThePool {
        try Self.send(message[..<600_000], on: 1, of: first, end: false)
        try Self.send(message[..<600_000], on: 3, of: first, end: false)
      }
      let refused = try await offThePool { try first.readFrames { $0.stream == 3 && $0.type == 1 } }
      let (status, text) = try Self.trailersOnly(refused, stream: 3, on: first)
      #expect(status == "8")
      #expect(text?.contains("this connection's large requests") == true, "\(text ?? "no message")")

      // Another connection's budget is its own: its large call is answered.
      let second = try Raw(port: harness.port)
      second.start()
      try await offThePool { try Self.send(message[...], on: 1, of: second, end: true) }
      let answered = try await offThePool { try second.readFrames(until: RelayWireTests.isEnd(of: 1)) }
      #expect(try RelayWireTests.answer(answered, stream: 1, on: second).grpcStatus == "0")

      // The first call ends (its client cancels it): its bytes come back, and the connection's
      // next large call is answered.
      first.write(Raw.frame(type: 3, stream: 1, payload: [0, 0, 0, 8]))
      try await offThePool { try Self.send(message[...], on: 5, of: first, end: true) }
      let later = try await offThePool { try first.readFrames(until: RelayWireTests.isEnd(of: 5)) }
      #expect(try RelayWireTests.answer(later, stream: 5, on: first).grpcStatus == "0")
      #expect(horn.seen.calls.count == 2)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("a first message that does not complete ends its call DEADLINE_EXCEEDED (slowloris)")
  func incompleteFirstMessage() async throws {
    var limits = RelayLimits()
    limits.firstMessageTimeout = .milliseconds(300)
    let horn = Self.horn()
    try await Harness.run(fakes: [horn], limits: limits) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      for stream in stride(from: UInt32(1), through: 19, by: 2) {
        connection.write(
          Raw.frame(type: 1, flags: 0x4, stream: stream, payload: try connection.headerBlock(Self.requestHeaders)))
        connection.write(
          Raw.frame(type: 0, stream: stream, payload: [0, 0, 0, 0, 100] + [UInt8](repeating: 1, count: 10)))
      }
      let started = Date()
      // The status each stream ended with.
      let ended = try await offThePool {
        var ended: [UInt32: String] = [:]
        while ended.count < 10 {
          guard let frame = try connection.readFrame(within: 5) else { break }
          if frame.type == 1, frame.flags & 0x1 != 0 {
            ended[frame.stream] = try connection.decode(frame.payload).first(name: "grpc-status") ?? "none"
          }
        }
        return ended
      }
      #expect(ended.count == 10)
      #expect(ended.values.allSatisfy { $0 == "4" })
      #expect(Date().timeIntervalSince(started) < 3)
      #expect(horn.seen.calls.isEmpty)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("a connection that never sends the preface is closed; one that stays idle gets GOAWAY")
  func handshakeAndIdleTimeouts() async throws {
    var limits = RelayLimits()
    limits.handshakeTimeout = .milliseconds(300)
    limits.idleTimeout = .milliseconds(400)
    try await Harness.run(fakes: [Self.horn()], limits: limits) { harness in
      let silent = try Raw(port: harness.port)
      let frames = try await offThePool { try Self.framesUntilClosed(silent) }
      #expect(!frames.contains { $0.type == 7 })  // nothing more than the relay's SETTINGS
      let idle = try Raw(port: harness.port)
      idle.start()
      #expect(Self.goAwayCode(try await offThePool { try Self.framesUntilClosed(idle) }) == 0)
      try await Self.resolveStillServed(harness)
    }
  }

  @Test("connections past the limit are closed as they are accepted")
  func connectionLimit() async throws {
    var limits = RelayLimits()
    limits.maxConnections = 3
    try await Harness.run(fakes: [Self.horn()], limits: limits) { harness in
      try await Self.resolveStillServed(harness)  // the harness client holds one connection
      // Four more: two fit. (Each is admitted on its own event loop, so which two is not fixed.)
      var open: [Raw] = []
      for _ in 0..<4 {
        let connection = try Raw(port: harness.port)
        connection.start()
        open.append(connection)
      }
      let served = try await offThePool { [open] in
        try open.filter { try $0.readFrame(within: 5) != nil }.count
      }
      #expect(served == 2)
      open.removeAll()
      try await Task.sleep(for: .milliseconds(300))
      let later = try Raw(port: harness.port)
      later.start()
      let first = try await offThePool { try later.readFrame() }
      #expect(first?.type == 4)  // the relay's SETTINGS: served again
    }
  }
}
