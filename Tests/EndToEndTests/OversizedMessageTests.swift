import Foundation
import GRPCCore
import IntentsKitTesting
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("oversized requests: RESOURCE_EXHAUSTED with a message, not a bare reset stream", .serialized)
struct OversizedMessageTests {
  static func resolve(content bytes: Int) throws -> Intentmesh_V1_ResolveRequest {
    try .with {
      $0.context = .with { $0.userID = "diana" }
      $0.intent = try .with {
        $0.intentClass = "INSendMessageIntent"
        $0.payload = try .init(
          message: Intentmesh_Messaging_V1_SendMessageIntent.with {
            $0.content = String(repeating: "x", count: bytes)
          })
      }
    }
  }

  /// `gzip`: the request message goes compressed (its wire bytes far under the limit, its own over it).
  static func call(port: Int, _ request: Intentmesh_V1_ResolveRequest, gzip: Bool = false) async throws -> RPCError? {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext,
      config: .defaults { $0.compression = .init(algorithm: gzip ? .gzip : .none, enabledAlgorithms: .all) })
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { grpc in
      do {
        var options = CallOptions.defaults
        options.compression = gzip ? .gzip : CompressionAlgorithm.none
        _ = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).resolve(request, options: options)
        return nil
      } catch let error as RPCError {
        return error
      }
    }
  }

  @Test("a domain and the gateway answer a message over their limit with RESOURCE_EXHAUSTED naming both sizes")
  func resourceExhausted() async throws {
    let file = TemporaryDatabaseFile("big")
    defer { file.remove() }
    let database = file.path
    let messaging = try await ServiceProcess(
      "messaging-service", arguments: ["--port", "0", "--database", database, "--max-message-bytes", "65536"])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(messaging.port)"])

    let small = try await Self.call(port: messaging.port, try Self.resolve(content: 1_000))
    #expect(small == nil)
    let direct = try #require(try await Self.call(port: messaging.port, try Self.resolve(content: 100_000)))
    #expect(direct.code == .resourceExhausted)
    #expect(direct.message.contains("accepts at most 65536"), "\(direct.message)")
    #expect(direct.message.contains("Resolve"), "\(direct.message)")
    // Compressed, the size is known only decompressed: the same answer.
    let compressed = try #require(
      try await Self.call(port: messaging.port, try Self.resolve(content: 100_000), gzip: true))
    #expect(compressed.code == .resourceExhausted, "\(compressed)")
    #expect(compressed.message.contains("accepts at most 65536"), "\(compressed.message)")
    #expect(try await Self.call(port: messaging.port, try Self.resolve(content: 1_000), gzip: true) == nil)

    // The gateway's own limit is 4 MiB.
    let throughGateway = try #require(try await Self.call(port: gateway.port, try Self.resolve(content: 5 << 20)))
    #expect(throughGateway.code == .resourceExhausted, "\(throughGateway)")
    #expect(throughGateway.message.contains("accepts at most 4194304"), "\(throughGateway.message)")
    // Under the gateway's limit but over the domain's: the domain's answer passes through.
    let passed = try #require(try await Self.call(port: gateway.port, try Self.resolve(content: 100_000)))
    #expect(passed.code == .resourceExhausted)
    #expect(passed.message.contains("accepts at most 65536"), "\(passed.message)")

    #expect(try await gateway.stop() == 0)
    #expect(try await messaging.stop() == 0)
  }
}
