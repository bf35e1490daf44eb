import NIOCore
import ServiceKit
import Testing

@testable import Gateway

/// A request body split into its gRPC messages as DATA arrives, without a stream around it.
@Suite("Gateway in-process server: a request's messages")
struct GRPCMessageDeframerTests {
  static func framed(_ payload: [UInt8], compressed: Bool = false) -> [UInt8] {
    let length = UInt32(payload.count)
    return [
      compressed ? 1 : 0, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
      UInt8(length & 0xFF),
    ] + payload
  }

  @Test("messages whole in one DATA, split across many, and empty ones; each with its wire bytes")
  func splits() throws {
    var deframer = GRPCMessageDeframer(messageLimit: 100)
    let body = Self.framed([1, 2, 3]) + Self.framed([]) + Self.framed([4, 5], compressed: true)
    let whole = try deframer.append(ByteBuffer(bytes: body))
    #expect(whole.map { Array($0.bytes.readableBytesView) } == [[1, 2, 3], [], [4, 5]])
    #expect(whole.map(\.wireBytes) == [8, 5, 7])
    #expect(whole.map(\.compressed) == [false, false, true])
    #expect(deframer.incompleteMessage == nil)

    // Byte by byte: each message comes out with its last byte, not before.
    var slow = GRPCMessageDeframer(messageLimit: 100)
    var seen: [[UInt8]] = []
    for (index, byte) in body.enumerated() {
      let out = try slow.append(ByteBuffer(bytes: [byte]))
      seen += out.map { Array($0.bytes.readableBytesView) }
      if index == 7 { #expect(seen == [[1, 2, 3]]) }
    }
    #expect(seen == [[1, 2, 3], [], [4, 5]])
  }

  @Test("a body that ends inside a prefix or a message says how far it came")
  func incomplete() throws {
    var inPrefix = GRPCMessageDeframer(messageLimit: 100)
    _ = try inPrefix.append(ByteBuffer(bytes: Self.framed([9]) + [0, 0, 0]))
    #expect(inPrefix.incompleteMessage == .prefix(received: 3))

    var inBody = GRPCMessageDeframer(messageLimit: 100)
    _ = try inBody.append(ByteBuffer(bytes: Array(Self.framed([1, 2, 3, 4]).prefix(7))))
    #expect(inBody.incompleteMessage == .body(received: 2, length: 4))
  }

  @Test("a message over the limit is refused from its prefix, before its body comes")
  func oversized() throws {
    var deframer = GRPCMessageDeframer(messageLimit: 10)
    #expect(try deframer.append(ByteBuffer(bytes: Self.framed(Array(repeating: 7, count: 10)))).count == 1)
    #expect(throws: GRPCMessageDeframer.Oversized(length: 11, limit: 10)) {
      _ = try deframer.append(ByteBuffer(bytes: [0, 0, 0, 0, 11]))
    }
  }
}
