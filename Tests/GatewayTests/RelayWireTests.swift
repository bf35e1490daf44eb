import GRPCCore
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
import NIOHPACK
import SwiftProtobuf
import Testing

/// The relay's own HTTP/2, frame by frame: what generated clients rarely send, what no client
/// may send, and a client that grants no window.
@Suite("Gateway relay: HTTP/2 on the wire", .serialized)
struct RelayWireTests {
  typealias Harness = TestGateway
  typealias Raw = RawHTTP2Connection

  static let requestHeaders = [
    (":method", "POST"), (":scheme", "http"), (":path", "/intentmesh.v1.IntentsExtension/Resolve"),
    (":authority", "localhost"), ("content-type", "application/grpc"), ("te", "trailers"),
    ("authorization", "Bearer \(TestIdentity.token(for: "diana"))"),
  ]

  /// A gRPC-framed Resolve of INHornIntent.
  static func resolveMessage(identifier: String) throws -> [UInt8] {
    let message: [UInt8] = try Intentmesh_V1_ResolveRequest.with {
      $0.context = Harness.context
      $0.intent = try Harness.intent("INHornIntent", identifier: identifier)
    }.serializedBytes()
    return [0] + withUnsafeBytes(of: UInt32(message.count).bigEndian, Array.init) + message
  }

  static func isEnd(of stream: UInt32) -> (Raw.Frame) -> Bool {
    { $0.stream == stream && $0.type == 1 && $0.flags & 0x1 != 0 }
  }

  /// The answer of `stream` in `frames`: response headers, trailers and the decoded message.
  static func answer(
    _ frames: [Raw.Frame], stream: UInt32, on connection: Raw
  ) throws -> (status: String?, grpcStatus: String?, response: Intentmesh_V1_ResolveResponse) {
    let headerFrames = frames.filter { $0.stream == stream && $0.type == 1 }
    let headers = try connection.decode(headerFrames[0].payload)
    let trailers = try connection.decode(headerFrames[headerFrames.count - 1].payload)
    let body = frames.filter { $0.stream == stream && $0.type == 0 }.flatMap(\.payload)
    let response = try Intentmesh_V1_ResolveResponse(serializedBytes: Array(body.dropFirst(5)))
    return (headers.first(name: ":status"), trailers.first(name: "grpc-status"), response)
  }

  @Test("HEADERS + CONTINUATION with padding, padded DATA, a PING and an unknown frame type: answered as usual")
  func framesGeneratedClientsRarelySend() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let connection = try Raw(port: harness.port)
      connection.start()
      connection.write(Raw.frame(type: 6, stream: 0, payload: [1, 2, 3, 4, 5, 6, 7, 8]))
      connection.write(Raw.frame(type: 0x42, flags: 0xFF, stream: 0, payload: [9, 9]))
      let block = try connection.headerBlock(Self.requestHeaders)
      let half = block.count / 2
      // HEADERS: padded by 5, half the block, no END_HEADERS; CONTINUATION: the rest, END_HEADERS.
      connection.write(Raw.frame(type: 1, flags: 0x8, stream: 1, payload: [5] + block[..<half] + [0, 0, 0, 0, 0]))
      connection.write(Raw.frame(type: 9, flags: 0x4, stream: 1, payload: Array(block[half...])))
      let message = try Self.resolveMessage(identifier: "raw")
      connection.write(Raw.frame(type: 0, flags: 0x1 | 0x8, stream: 1, payload: [3] + message + [0, 0, 0]))

      let frames = try await offThePool { try connection.readFrames(until: Self.isEnd(of: 1)) }
      #expect(frames.contains { $0.type == 6 && $0.flags & 0x1 != 0 && $0.payload == [1, 2, 3, 4, 5, 6, 7, 8] })
      let answer = try Self.answer(frames, stream: 1, on: connection)
      #expect(answer.status == "200")
      #expect(answer.grpcStatus == "0")
      #expect(answer.response.resolvedIntent.identifier == "raw")
      #expect(horn.seen.calls == ["Resolve"])
    }
  }

  @Test("frames no client may send end the connection with GOAWAY and the error; the relay answers the next")
  func protocolErrors() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let cases: [(String, UInt32, (Raw) throws -> Void)] = [
        ("DATA on stream 0", 1, { $0.write(Raw.frame(type: 0, stream: 0, payload: [1])) }),
        ("a frame above SETTINGS_MAX_FRAME_SIZE", 6, { $0.write([0, 0x4E, 0x20, 0, 0, 0, 0, 0, 1]) }),
        (
          "HEADERS on an even stream", 1,
          { $0.write(Raw.frame(type: 1, flags: 0x4, stream: 2, payload: try $0.headerBlock(Self.requestHeaders))) }
        ),
        ("CONTINUATION without HEADERS", 1, { $0.write(Raw.frame(type: 9, flags: 0x4, stream: 1, payload: [0x82])) }),
        (
          "a header block that does not decode", 9,
          { $0.write(Raw.frame(type: 1, flags: 0x4, stream: 1, payload: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF])) }
        ),
        ("WINDOW_UPDATE of 0", 1, { $0.write(Raw.frame(type: 8, stream: 0, payload: [0, 0, 0, 0])) }),
        ("SETTINGS of 5 bytes", 6, { $0.write(Raw.frame(type: 4, stream: 0, payload: [0, 4, 0, 0, 0])) }),
      ]
      for (name, code, send) in cases {
        let connection = try Raw(port: harness.port)
        connection.start()
        try send(connection)
        let (frames, after) = try await offThePool {
          (try connection.readFrames { $0.type == 7 }, try connection.readFrame())
        }
        let goAway = frames[frames.count - 1].payload
        let sent = goAway[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        #expect(sent == code, "\(name): GOAWAY \(sent), expected \(code)")
        #expect(after == nil, "\(name): the connection stays open")
      }
      // Not HTTP/2 at all: HTTP/1.1, which the web side answers (ConnectEndToEndTests), not the relay.
      let port = harness.port
      let http1 = try await offThePool { try RawHTTP1Connection(port: port).call("GET", "/nothing-here") }
      #expect(http1.status == 404)

      let answer = try await harness.extensionClient.resolve(
        .with {
          $0.context = Harness.context; $0.intent = try Harness.intent("INHornIntent")
        })
      #expect(answer.complete)
    }
  }

  @Test("a client that grants no window gets the headers, then the message and trailers once it grants some")
  func zeroWindowClient() async throws {
    let horn = FakeDomain(appName: "HornChat", intents: ["INHornIntent"])
    try await Harness.run(fakes: [horn]) { harness in
      let connection = try Raw(port: harness.port)
      connection.start(settings: [(4, 0)])  // SETTINGS_INITIAL_WINDOW_SIZE = 0
      connection.write(
        Raw.frame(type: 1, flags: 0x4, stream: 1, payload: try connection.headerBlock(Self.requestHeaders)))
      connection.write(Raw.frame(type: 0, flags: 0x1, stream: 1, payload: try Self.resolveMessage(identifier: "held")))

      var frames = try await offThePool { try connection.readFrames { $0.stream == 1 && $0.type == 1 } }
      // The answer waits in the relay: no DATA, and no trailers overtaking it.
      #expect(try await offThePool { try connection.staysQuiet(for: 0.6) { $0.stream == 0 } })
      connection.write(Raw.frame(type: 8, stream: 1, payload: [0, 0x10, 0, 0]))  // 1 MiB
      frames += try await offThePool { try connection.readFrames(until: Self.isEnd(of: 1)) }
      let answer = try Self.answer(frames, stream: 1, on: connection)
      #expect(answer.grpcStatus == "0")
      #expect(answer.response.resolvedIntent.identifier == "held")
    }
  }
}
