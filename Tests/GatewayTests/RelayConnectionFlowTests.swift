import NIOCore
import NIOEmbedded
import Testing

@testable import Gateway

/// Flow control and framing order on one client connection, embedded: no socket, no upstream.
@Suite("Gateway relay: flow control and the preface, embedded")
struct RelayConnectionFlowTests {
  typealias Embedded = RelayConnectionTests.Embedded

  @Test("a frame other than SETTINGS after the preface: GOAWAY PROTOCOL_ERROR (RFC 9113 §3.4)")
  func settingsFirst() throws {
    let relay = try Embedded()
    try relay.send(
      Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + (try relay.headers(RelayConnectionTests.resolve, stream: 1)))
    #expect(RelayConnectionTests.goAwayCode(try relay.written()) == 1)
    #expect(!relay.channel.isActive)
  }

  /// Opens a pass-through call, sends `bytes` of a first message that is not whole yet (so the
  /// relay holds them while it routes), and resets the stream.
  static func holdAndReset(_ relay: Embedded, stream: UInt32, bytes: Int) throws {
    var frames = try relay.headers(RelayConnectionTests.resolve, stream: stream)
    var message: [UInt8] = [0] + withUnsafeBytes(of: UInt32(bytes * 2).bigEndian, Array.init)
    message += [UInt8](repeating: 1, count: bytes - 5)
    var offset = 0
    while offset < message.count {
      let chunk = Array(message[offset..<min(offset + 16_384, message.count)])
      frames += Embedded.frame(type: 0, stream: stream, payload: chunk)
      offset += chunk.count
    }
    frames += Embedded.frame(type: 3, stream: stream, payload: [0, 0, 0, 8])
    try relay.send(frames)
  }

  @Test("bytes a call held while routing come back to the connection's window when the client resets it")
  func heldBytesCreditedOnReset() throws {
    let relay = try Embedded()
    try relay.handshake()
    _ = try relay.written()
    // 24 calls × 200 KB held then reset: 4.8 MB, past the quarter of the 16 MiB connection window
    // after which the relay grants it back; without the credit the connection would stall at 16 MiB.
    for index in 0..<24 { try Self.holdAndReset(relay, stream: UInt32(1 + 2 * index), bytes: 200_000) }
    let updates = try relay.written().filter { $0.type == 8 && $0.stream == 0 }
    let granted = updates.map { $0.payload.reduce(0) { $0 << 8 | Int($1) } }.reduce(0, +)
    #expect(granted >= 4 << 20)
    #expect(relay.channel.isActive)
  }

  @Test("trailers from a client larger than the header list limit: that stream is reset, the connection goes on")
  func largeTrailers() throws {
    var limits = RelayLimits()
    limits.maxHeaderListSize = 1024
    let relay = try Embedded(limits: limits)
    try relay.handshake()
    _ = try relay.written()
    try relay.send(
      try relay.headers(RelayConnectionTests.resolve, stream: 1)
        + (try relay.headers([("x-big", String(repeating: "a", count: 2000))], stream: 1, endStream: true)))
    let frames = try relay.written()
    #expect(frames.contains { $0.type == 3 && $0.stream == 1 && $0.payload == [0, 0, 0, 1] })
    #expect(relay.channel.isActive)
  }

  @Test("a burst of calls whose first message timed out is answered over short ticks, not in one long one")
  func expiriesSpread() throws {
    let relay = try Embedded()
    try relay.handshake()
    _ = try relay.written()
    var frames: [UInt8] = []
    for index in 0..<600 {
      frames += try relay.headers(RelayConnectionTests.resolve, stream: UInt32(1 + 2 * index))
      frames += Embedded.frame(type: 0, stream: UInt32(1 + 2 * index), payload: [0, 0, 0, 0, 100, 1])
    }
    try relay.send(frames)
    _ = try relay.written()
    func answered() throws -> Int { try relay.written().filter { $0.type == 1 && $0.flags & 1 == 1 }.count }
    relay.advance(by: .seconds(6))
    #expect(try answered() == RelayTimers.expiriesPerTick)
    relay.advance(by: RelayTimers.catchUpDelay)
    #expect(try answered() == RelayTimers.expiriesPerTick)
    relay.advance(by: RelayTimers.catchUpDelay)
    #expect(try answered() == 600 - 2 * RelayTimers.expiriesPerTick)
    relay.advance(by: .seconds(2))
    #expect(try answered() == 0)
    #expect(relay.channel.isActive)
  }
}
