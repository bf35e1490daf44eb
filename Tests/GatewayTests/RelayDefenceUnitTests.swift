import NIOCore
import NIOHPACK
import Testing

@testable import Gateway

/// The relay's defences as values, without a socket: the refilling budgets, RFC 9113's header
/// rules, and the frame reader's bounds.
@Suite("Gateway relay: defences as values")
struct RelayDefenceUnitTests {
  @Test("a budget pays for its capacity at once, then refills over its window")
  func rateBudget() {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)
    var budget = RateBudget(capacity: 10, window: .seconds(10), now: start)
    func spend(_ at: NIODeadline) -> Bool { budget.spend(now: at) }
    for _ in 0..<10 { #expect(spend(start)) }
    #expect(!spend(start))
    // One event per second comes back.
    #expect(!spend(start + .milliseconds(900)))
    #expect(spend(start + .milliseconds(1100)))
    #expect(!spend(start + .milliseconds(1200)))
    // A long quiet spell refills to the capacity, no more.
    let refilled = budget.remaining(now: start + .seconds(3600))
    #expect(refilled == 10)
    var none = RateBudget(capacity: 0, window: .seconds(1), now: start)
    let spent = none.spend(now: start + .seconds(5))
    #expect(!spent)
  }

  static let grpcRequest: [(String, String)] = [
    (":method", "POST"), (":scheme", "http"), (":path", "/intentmesh.v1.IntentsExtension/Resolve"),
    (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers"),
    ("grpc-timeout", "5S"), ("user-agent", "grpc-python/1.70 grpc-c/45.0.0 (linux; chttp2)"),
  ]

  @Test("a gRPC request's header list is well formed")
  func wellFormed() {
    #expect(HeaderListCheck.request(HPACKHeaders(Self.grpcRequest)) == nil)
    #expect(HeaderListCheck.trailers(HPACKHeaders([("x-checksum", "abc")])) == nil)
    #expect(HeaderListCheck.listSize(HPACKHeaders([("ab", "cde")])) == 37)
  }

  @Test(
    "RFC 9113 §8.2–8.3: each way a request's header list can be malformed",
    arguments: [
      ([("X-Upper", "1")], HeaderListCheck.Violation.uppercaseName("X-Upper")),
      ([("x y", "1")], .invalidNameCharacter("x y")),
      ([("x-note", "a\r\nb")], .invalidValueCharacter("x-note")),
      ([("x-note", "a\u{0}b")], .invalidValueCharacter("x-note")),
      ([("x-note", " padded")], .invalidValueCharacter("x-note")),
      ([(":path", "/again")], .pseudoHeaderAfterRegular(":path")),
      ([("connection", "keep-alive")], .connectionSpecific("connection")),
      ([("transfer-encoding", "chunked")], .connectionSpecific("transfer-encoding")),
      ([("upgrade", "h2c")], .connectionSpecific("upgrade")),
      ([("te", "gzip")], .teNotTrailers),
    ] as [([(String, String)], HeaderListCheck.Violation)])
  func malformed(extra: [(String, String)], violation: HeaderListCheck.Violation) {
    let headers = Self.grpcRequest.filter { $0.0 != "te" || extra.first?.0 != "te" } + extra
    #expect(HeaderListCheck.request(HPACKHeaders(headers)) == violation)
  }

  @Test("pseudo-headers: only the request's four, each once, the required three present, :path absolute")
  func pseudoHeaders() {
    func check(_ headers: [(String, String)]) -> HeaderListCheck.Violation? {
      HeaderListCheck.request(HPACKHeaders(headers))
    }
    #expect(check([(":status", "200")] + Self.grpcRequest) == .unknownPseudoHeader(":status"))
    #expect(check([(":path", "/a")] + Self.grpcRequest) == .duplicatePseudoHeader(":path"))
    #expect(check(Self.grpcRequest.filter { $0.0 != ":scheme" }) == .missingPseudoHeader(":scheme"))
    #expect(check(Self.grpcRequest.filter { $0.0 != ":method" }) == .missingPseudoHeader(":method"))
    #expect(check(Self.grpcRequest.map { $0.0 == ":path" ? ($0.0, "relative") : $0 }) == .invalidPath)
    #expect(HeaderListCheck.trailers(HPACKHeaders([(":path", "/a")])) == .pseudoHeaderInTrailers(":path"))
  }

  static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32, payload: [UInt8] = []) -> ByteBuffer {
    var buffer = ByteBuffer()
    buffer.writeFrameHeader(
      length: payload.count, type: HTTP2Wire.FrameType(rawValue: type) ?? .data, flags: flags, stream: stream)
    if HTTP2Wire.FrameType(rawValue: type) == nil { buffer.setInteger(type, at: 3) }
    buffer.writeBytes(payload)
    return buffer
  }

  @Test("the reader cuts frames out of reads split anywhere, and joins CONTINUATION to HEADERS")
  func readerAcrossReads() throws {
    var reader = HTTP2FrameReader(expectingPreface: true)
    var bytes = ByteBuffer(bytes: HTTP2Wire.clientPreface)
    var settings = Self.frame(type: 4, stream: 0)
    bytes.writeBuffer(&settings)
    var headers = Self.frame(type: 1, stream: 1, payload: [0x82, 0x86])
    var continuation = Self.frame(type: 9, flags: 0x4, stream: 1, payload: [0x84])
    var data = Self.frame(type: 0, flags: 0x9, stream: 1, payload: [2, 7, 7, 0, 0])
    bytes.writeBuffer(&headers)
    bytes.writeBuffer(&continuation)
    bytes.writeBuffer(&data)
    var frames: [(HTTP2Wire.FrameHeader, ByteBuffer)] = []
    // One byte at a time.
    while let byte = bytes.readSlice(length: 1) {
      reader.append(byte)
      while let frame = try reader.next() { frames.append(frame) }
    }
    #expect(frames.map(\.0.type) == [4, 1, 0])
    #expect(Array(frames[1].1.readableBytesView) == [0x82, 0x86, 0x84])
    #expect(frames[2].0.length == 5)  // flow control counts the padding
    #expect(Array(frames[2].1.readableBytesView) == [7, 7])
  }

  @Test("the reader refuses a header block of too many CONTINUATION frames or too many bytes")
  func readerBounds() throws {
    var reader = HTTP2FrameReader(expectingPreface: false, maxHeaderBlockBytes: 100, maxContinuationFrames: 3)
    reader.append(Self.frame(type: 1, stream: 1, payload: [0x82]))
    for _ in 0..<3 { reader.append(Self.frame(type: 9, stream: 1)) }
    let pending = try reader.next()
    #expect(pending == nil)
    reader.append(Self.frame(type: 9, stream: 1))
    #expect(throws: HTTP2FrameReader.Failure.self) { try reader.next() }

    var large = HTTP2FrameReader(expectingPreface: false, maxHeaderBlockBytes: 100, maxContinuationFrames: 3)
    large.append(Self.frame(type: 1, stream: 1, payload: [UInt8](repeating: 0x40, count: 60)))
    large.append(Self.frame(type: 9, stream: 1, payload: [UInt8](repeating: 0x40, count: 60)))
    #expect(throws: HTTP2FrameReader.Failure.self) { try large.next() }
  }

  @Test("bytes a frame leaves in the reader do not keep the read buffer they came in")
  func readerDoesNotPinReads() throws {
    var reader = HTTP2FrameReader(expectingPreface: false)
    var read = Self.frame(type: 0, stream: 1, payload: [UInt8](repeating: 1, count: 10))
    read.writeBytes([0, 0, 10])  // the start of the next frame's header
    reader.append(read)
    let (_, payload) = try #require(try reader.next())
    let incomplete = try reader.next()
    #expect(incomplete == nil)
    reader.append(ByteBuffer(bytes: [0, 0, 0, 0, 0, 1] + [UInt8](repeating: 2, count: 10)))
    let (next, second) = try #require(try reader.next())
    #expect(next.streamID == 1 && Array(second.readableBytesView) == [UInt8](repeating: 2, count: 10))
    #expect(Array(payload.readableBytesView) == [UInt8](repeating: 1, count: 10))
  }
}

@Suite("Gateway relay: backing off an upstream that asks for calm")
struct UpstreamBackoffTests {
  static let start = NIODeadline.uptimeNanoseconds(5_000_000_000)

  @Test("one second after the first ENHANCE_YOUR_CALM, doubling to 30 s, forgotten after two calm minutes")
  func backoff() {
    var backoff = UpstreamBackoff()
    #expect(backoff.wait(now: Self.start) == .zero)
    #expect(backoff.calmDown(now: Self.start) == .seconds(1))
    #expect(backoff.wait(now: Self.start + .milliseconds(400)) == .milliseconds(600))
    #expect(backoff.wait(now: Self.start + .seconds(2)) == .zero)
    var now = Self.start
    var delays: [Int64] = []
    for _ in 0..<6 {
      now = now + .seconds(10)
      delays.append(backoff.calmDown(now: now).nanoseconds / 1_000_000_000)
    }
    #expect(delays == [2, 4, 8, 16, 30, 30])
    #expect(backoff.calmDown(now: now + .seconds(121)) == .seconds(1))
  }
}
