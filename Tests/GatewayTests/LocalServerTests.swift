import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
import NIOHPACK
import SwiftProtobuf
import Testing

/// The gateway's own gRPC server, answering behind the relay in process (`LocalServerTransport`),
/// over real sockets: compressed requests, an encoding it does not take, a message over the
/// limit, a client that leaves while its call runs, a stream of answers.
@Suite("Gateway: its own server, in process behind the relay")
struct LocalServerTests {
  typealias Raw = RawHTTP2Connection

  static func client<T: Sendable>(
    port: Int, compression: CompressionAlgorithm, _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> T
  ) async throws -> T {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext,
      config: .defaults { $0.compression = .init(algorithm: compression, enabledAlgorithms: .all) })
    return try await withGRPCClient(
      transport: transport, interceptors: [ContextUserTokenInterceptor()], handleClient: body)
  }

  @Test(
    "gzip and deflate requests to its methods and to a domain's (through it) are answered",
    arguments: [
      CompressionAlgorithm.gzip, .deflate,
    ])
  func compressed(algorithm: CompressionAlgorithm) async throws {
    try await TestGateway.run { gateway in
      try await Self.client(port: gateway.port, compression: algorithm) { grpc in
        var options = CallOptions.defaults
        options.compression = algorithm
        let routes = try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc).listRoutes(
          .init(), options: options)
        #expect(routes.domains.map(\.appName) == ["UnicornChat"])
        let turn = try await Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc).interact(
          .with {
            $0.context = TestGateway.context
            $0.intent = try! TestGateway.intent("INSearchForMessagesIntent", app: "UnicornChat")
          }, options: options)
        #expect(turn.appName == "UnicornChat")
        // A pass-through call the relay cannot read (compressed) is placed by the gateway's server.
        let resolved = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(
          .with {
            $0.context = TestGateway.context
            $0.intent = try! TestGateway.intent("INSearchForMessagesIntent")
          }, options: options)
        #expect(resolved.complete)
      }
    }
  }

  /// One call of `path` with `headers` and `body` (gRPC-framed) on a raw connection: its trailers.
  static func rawCall(port: Int, path: String, headers extra: [(String, String)] = [], body: [UInt8]) throws
    -> HPACKHeaders?
  {
    let connection = try Raw(port: port)
    connection.start()
    let headers = try connection.headerBlock(
      [
        (":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", path),
        ("content-type", "application/grpc"), ("te", "trailers"),
        ("authorization", "Bearer \(TestIdentity.token(for: "diana"))"),
      ] + extra)
    connection.write(
      Raw.frame(type: 1, flags: 4, stream: 1, payload: headers) + Raw.frame(type: 0, flags: 1, stream: 1, payload: body)
    )
    // A loaded machine (the whole suite at once) has taken over 10 s to answer a relayed call.
    let frames = try connection.readFrames(within: 30) { $0.stream == 1 && $0.flags & 1 != 0 }
    return try frames.filter { $0.stream == 1 && $0.type == 1 }.map { try connection.decode($0.payload) }.last
  }

  @Test(
    "an encoding it does not take, a compressed message that does not inflate, and one past the limit once inflated")
  func badCompression() async throws {
    try await TestGateway.run(maxMessageBytes: 1024) { gateway in
      let port = gateway.port
      let routes = "/intentmesh.gateway.v1.Gateway/ListRoutes"
      try await offThePool {
        let brotli = try Self.rawCall(
          port: port, path: routes, headers: [("grpc-encoding", "br")], body: [1, 0, 0, 0, 1, 0])
        #expect(brotli?.first(name: "grpc-status") == "12")
        #expect(brotli?.first(name: "grpc-message")?.contains("grpc-encoding br is not taken") == true)

        let garbage = try Self.rawCall(
          port: port, path: routes, headers: [("grpc-encoding", "gzip")], body: [1, 0, 0, 0, 3, 9, 9, 9])
        #expect(garbage?.first(name: "grpc-status") == "13")
        #expect(garbage?.first(name: "grpc-message")?.contains("not a whole gzip stream") == true)
      }
      // 4,000 bytes gzip to a few dozen: past the 1,024-byte limit once inflated.
      let bomb = try await MessageDecompressionTests.compressed("0", times: 4000, gzip: true)
      #expect(bomb.count < 100)
      try await offThePool {
        let length = UInt32(bomb.count)
        let framed =
          [1, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + bomb
        let refused = try Self.rawCall(port: port, path: routes, headers: [("grpc-encoding", "gzip")], body: framed)
        #expect(refused?.first(name: "grpc-status") == "8")
        #expect(refused?.first(name: "grpc-message")?.contains("over 1024 bytes once inflated") == true)
      }
    }
  }

  @Test("a request's content-length (curl and h2load send one) is its own: the gateway's calls for it are answered")
  func contentLengthStaysWithItsHop() async throws {
    try await TestGateway.run { gateway in
      let port = gateway.port
      let request: [UInt8] = try Intentmesh_Gateway_V1_InteractRequest.with {
        $0.context = TestGateway.context
        $0.intent = try! TestGateway.intent("INSearchForMessagesIntent", app: "UnicornChat")
      }.serializedBytes()
      let framed = [0] + ConnectEndToEndTests.bigEndian(UInt32(request.count)) + request
      let trailers = try await offThePool {
        try Self.rawCall(
          port: port, path: "/intentmesh.gateway.v1.Gateway/Interact", headers: [("content-length", "\(framed.count)")],
          body: framed)
      }
      #expect(trailers?.first(name: "grpc-status") == "0", "\(String(describing: trailers))")
    }
  }

  @Test("a client that resets its stream while the gateway's own call runs cancels the call it made to the domain")
  func clientLeaves() async throws {
    let slow = FakeDomain(appName: "SlowChat", intents: ["INSlowIntent"], resolveDelay: .seconds(20))
    try await TestGateway.run(fakes: [slow]) { gateway in
      let interact = Task {
        try await gateway.gatewayClient.interact(
          .with {
            $0.context = TestGateway.context; $0.intent = try! TestGateway.intent("INSlowIntent")
          })
      }
      try await waitUntil("the Resolve reached the domain", limit: .seconds(10)) { slow.seen.calls.contains("Resolve") }
      interact.cancel()
      await #expect(throws: (any Error).self) { _ = try await interact.value }
      try await waitUntil("the domain's Resolve was cancelled", limit: .seconds(5)) {
        slow.seen.calls.contains("Resolve cancelled")
      }
    }
  }

  @Test("a server stream from it (health Watch) sends each change as it happens")
  func serverStream() async throws {
    try await TestGateway.run { gateway in
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: gateway.port), transportSecurity: .plaintext)
      try await withGRPCClient(transport: transport) { grpc in
        let health = Grpc_Health_V1_Health.Client(wrapping: grpc)
        let first = try await health.watch(.with { $0.service = "intentmesh.gateway.v1.Gateway" }) { response in
          var statuses = response.messages.makeAsyncIterator()
          return try await statuses.next()?.status
        }
        #expect(first == .serving)
      }
    }
  }
}
