import Foundation
import IntentsKitTesting
import NIOHPACK
import Testing

/// How requests end, over real sockets: to the gateway's own methods, through the relay to a domain,
/// and to the domain directly. A gRPC message END_STREAM cuts short is answered INTERNAL "Incomplete
/// request message…", never OK and never "Empty stream."; END_STREAM on HEADERS is answered (an
/// empty stream: OK for a bidirectional method, INTERNAL for a unary one), never left hanging; and
/// the connection still serves.
@Suite("How requests end: cut-short messages and END_STREAM on HEADERS, over real sockets", .serialized)
struct RequestEndEndToEndTests {
  typealias Raw = RawHTTP2Connection

  /// The two cuts the issue names: three bytes of a prefix, and ten of a hundred promised bytes.
  static let cuts: [(body: [UInt8], message: String)] = [
    ([0, 0, 0], "Incomplete request message: the request ended 3 of 5 bytes into a message's length prefix"),
    (
      [0, 0, 0, 0, 100] + Array(repeating: 0x2A, count: 10),
      "Incomplete request message: the request ended 10 bytes into a message whose prefix promised 100 bytes"
    ),
  ]

  /// Unary, server-streaming and bidirectional methods, with and without a token.
  static let paths = [
    "/intentmesh.gateway.v1.Gateway/ListRoutes",
    "/intentmesh.v1.IntentsExtension/Resolve",
    "/intentmesh.v1.IntentsExtension/StartSendingUpdates",
    "/grpc.health.v1.Health/Check",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
  ]

  /// Sends every cut of every path on one connection to `port` and returns (path, status, message)
  /// per call, then one whole empty message to `wholePath` (which must still be answered OK).
  static func callCutShort(port: Int, paths: [String], wholePath: String) throws -> [(String, String?, String?)] {
    let connection = try Raw(port: port)
    connection.start()
    var answers: [(String, String?, String?)] = []
    var stream: UInt32 = 1
    for path in paths {
      for cut in cuts {
        let headers = try connection.headerBlock([
          (":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
          ("content-type", "application/grpc"), ("te", "trailers"),
          ("authorization", "Bearer \(TestIdentity.token(for: "diana"))"),
        ])
        connection.write(
          Raw.frame(type: 1, flags: 4, stream: stream, payload: headers)
            + Raw.frame(type: 0, flags: 1, stream: stream, payload: cut.body))
        let frames = try connection.readFrames { $0.stream == stream && $0.flags & 1 != 0 }
        let blocks = try frames.filter { $0.stream == stream && $0.type == 1 }.map { try connection.decode($0.payload) }
        let trailers = blocks.last
        answers.append((path, trailers?.first(name: "grpc-status"), trailers?.first(name: "grpc-message")))
        #expect(trailers?.first(name: "grpc-message") == cut.message, "\(path)")
        stream += 2
      }
    }
    let headers = try connection.headerBlock([
      (":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", wholePath),
      ("content-type", "application/grpc"), ("te", "trailers"),
    ])
    connection.write(
      Raw.frame(type: 1, flags: 4, stream: stream, payload: headers)
        + Raw.frame(type: 0, flags: 1, stream: stream, payload: [0, 0, 0, 0, 0]))
    let frames = try connection.readFrames { $0.stream == stream && $0.flags & 1 != 0 }
    // Every header block is decoded, in order: HPACK's dynamic table depends on each.
    let trailers = try frames.filter { $0.stream == stream && $0.type == 1 }.map { try connection.decode($0.payload) }
      .last
    answers.append((wholePath, trailers?.first(name: "grpc-status"), nil))
    return answers
  }

  @Test("Through the gateway's public port: its own methods and the relayed domain methods")
  func throughTheGateway() async throws {
    try await TestGateway.run { harness in
      let port = harness.port
      let answers = try await offThePool {
        try Self.callCutShort(port: port, paths: Self.paths, wholePath: "/intentmesh.gateway.v1.Gateway/ListRoutes")
      }
      #expect(answers.count == Self.paths.count * Self.cuts.count + 1)
      for (path, status, _) in answers.dropLast() { #expect(status == "13", "\(path)") }
      #expect(answers.last?.1 == "0")
    }
  }

  @Test("Directly to a domain served on ServiceTransport")
  func directToTheDomain() async throws {
    try await TestGateway.run { harness in
      let port = harness.messagingPort
      let paths = Self.paths.filter { !$0.contains("Gateway/") }
      let answers = try await offThePool {
        try Self.callCutShort(port: port, paths: paths, wholePath: "/intentmesh.v1.IntentsExtension/Describe")
      }
      for (path, status, _) in answers.dropLast() { #expect(status == "13", "\(path)") }
      #expect(answers.last?.1 == "0")
    }
  }

  /// The status of a request that ends on its HEADERS (no DATA at all), on `port`.
  static func endOnHeaders(port: Int, path: String) throws -> String? {
    let connection = try Raw(port: port)
    connection.start()
    let headers = try connection.headerBlock([
      (":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
      ("content-type", "application/grpc"), ("te", "trailers"), ("grpc-timeout", "20S"),
      ("authorization", "Bearer \(TestIdentity.token(for: "diana"))"),
    ])
    connection.write(Raw.frame(type: 1, flags: 5, stream: 1, payload: headers))
    let frames = try connection.readFrames { $0.stream == 1 && $0.flags & 1 != 0 }
    let blocks = try frames.filter { $0.stream == 1 && $0.type == 1 }.map { try connection.decode($0.payload) }
    return blocks.last?.first(name: "grpc-status")
  }

  @Test("END_STREAM on HEADERS is answered at once, through the gateway and directly (it used to hang)")
  func endStreamOnHeaders() async throws {
    try await TestGateway.run { harness in
      let (gateway, domain) = (harness.port, harness.messagingPort)
      let answers = try await offThePool {
        [
          try Self.endOnHeaders(port: gateway, path: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"),
          try Self.endOnHeaders(port: gateway, path: "/intentmesh.gateway.v1.Gateway/ListRoutes"),
          try Self.endOnHeaders(port: gateway, path: "/intentmesh.v1.IntentsExtension/Resolve"),
          try Self.endOnHeaders(port: domain, path: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"),
          try Self.endOnHeaders(port: domain, path: "/intentmesh.v1.IntentsExtension/Describe"),
        ]
      }
      // Bidirectional: an empty stream ends OK; unary: no message is INTERNAL.
      #expect(answers == ["0", "13", "13", "0", "13"])
    }
  }
}
