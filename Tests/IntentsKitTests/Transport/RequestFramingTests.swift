import NIOCore
@testable import ServiceKit
import Testing

/// The request framing count that tells a cut-short message at END_STREAM, fed as DATA frames
/// split at every possible point.
@Suite("Request framing: where a request's messages stand at END_STREAM")
struct RequestFramingTests {
  static func message(_ length: Int, compressed: Bool = false) -> [UInt8] {
    [
      compressed ? 1 : 0, UInt8(length >> 24 & 0xFF), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
      UInt8(length & 0xFF),
    ] + Array(repeating: 0x2A, count: length)
  }

  /// The framing after `bytes`, fed in frames of `chunk` bytes.
  static func framing(_ bytes: [UInt8], chunk: Int, limit: Int? = nil) -> RequestFraming {
    var framing = RequestFraming(messageLimit: limit)
    var offset = 0
    while offset < bytes.count {
      let end = min(offset + chunk, bytes.count)
      framing.consume(ByteBuffer(bytes: bytes[offset..<end]))
      offset = end
    }
    return framing
  }

  @Test("Whole messages, empty ones and large ones end at a boundary, however the frames split them")
  func wholeMessagesEndAtABoundary() {
    let bytes = Self.message(0) + Self.message(7) + Self.message(300, compressed: true) + Self.message(0)
    for chunk in 1...bytes.count {
      let framing = Self.framing(bytes, chunk: chunk)
      #expect(framing.position == .betweenMessages, "chunk \(chunk)")
      #expect(framing.incompleteMessage == nil, "chunk \(chunk)")
    }
    #expect(RequestFraming().incompleteMessage == nil)
    #expect(Self.framing(Self.message(70_000), chunk: 16_384).incompleteMessage == nil)
  }

  @Test("Cut inside a prefix: how many of its five bytes came")
  func cutInsideAPrefix() {
    for received in 1...4 {
      let bytes = Self.message(5) + Array(Self.message(9).prefix(received))
      for chunk in 1...bytes.count {
        #expect(Self.framing(bytes, chunk: chunk).incompleteMessage == .prefix(received: received))
      }
    }
    #expect(Self.framing([0, 0, 0], chunk: 3).incompleteMessage == .prefix(received: 3))
  }

  @Test("Cut inside a body: how many of the promised bytes came")
  func cutInsideABody() {
    let bytes = Array(Self.message(100).prefix(5 + 10))
    for chunk in 1...bytes.count {
      #expect(Self.framing(bytes, chunk: chunk).incompleteMessage == .body(received: 10, length: 100))
    }
    // A prefix alone promising bytes: none of them came.
    #expect(Self.framing(Array(Self.message(3).prefix(5)), chunk: 5).incompleteMessage == .body(received: 0, length: 3))
    // The largest length a prefix can state.
    #expect(
      Self.framing([0, 0xFF, 0xFF, 0xFF, 0xFF, 1], chunk: 6).incompleteMessage
        == .body(received: 1, length: 0xFFFF_FFFF))
  }

  @Test("The status message says what was cut, in plain ASCII")
  func statusMessages() {
    let prefix = IncompleteRequestMessage.prefix(received: 3).statusMessage
    let body = IncompleteRequestMessage.body(received: 10, length: 100).statusMessage
    #expect(prefix == "Incomplete request message: the request ended 3 of 5 bytes into a message's length prefix")
    #expect(
      body == "Incomplete request message: the request ended 10 bytes into a message whose prefix promised 100 bytes")
    #expect((prefix + body).utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") })
  }

  @Test("Given a limit, the first uncompressed message over it is noted from its prefix; compressed ones are not")
  func oversizedMessage() {
    let within = Self.message(100) + Self.message(300, compressed: true) + Self.message(100)
    let over = within + Array(Self.message(101).prefix(5)) + Array(repeating: 0x2A, count: 101) + Self.message(200)
    for chunk in [1, 2, 3, 5, 7, 64, 4096] {
      #expect(Self.framing(within, chunk: chunk, limit: 100).oversizedMessage == nil, "chunk \(chunk)")
      #expect(Self.framing(over, chunk: chunk, limit: 100).oversizedMessage == 101, "chunk \(chunk)")
      // Known from the prefix alone, before any of the body.
      #expect(Self.framing(Array(Self.message(101).prefix(5)), chunk: chunk, limit: 100).oversizedMessage == 101)
    }
    #expect(Self.framing(over, chunk: 3).oversizedMessage == nil)
  }
}
