import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import Testing

@Suite("a domain's calls on either executor")
struct CallExecutorEndToEndTests {
  @Test(
    "on its connection's event loop (the default) and on Swift's shared threads, a domain gives the same answers to many concurrent calls on one connection",
    arguments: [[], ["--call-executor", "pool"]])
  func sameAnswers(extra: [String]) async throws {
    let file = TemporaryDatabaseFile("executor")
    defer { file.remove() }
    let messaging = try await ServiceProcess(
      "messaging-service", arguments: ["--port", "0", "--database", file.path] + extra)
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: messaging.port), transportSecurity: .plaintext)
    let requests = try [10, 11].map { try OversizedMessageTests.resolve(content: $0) }
    let (expected, answers) = try await withGRPCClient(
      transport: transport, interceptors: [ContextUserTokenInterceptor()]
    ) { grpc in
      let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
      var expected: [Intentmesh_V1_ResolveResponse] = []
      for request in requests { expected.append(try await client.resolve(request)) }
      let answers = try await withThrowingTaskGroup(of: (Int, Intentmesh_V1_ResolveResponse).self) { group in
        for n in 0..<200 { group.addTask { (n % 2, try await client.resolve(requests[n % 2])) } }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      return (expected, answers)
    }
    #expect(expected[0] != expected[1])
    #expect(answers.count == 200)
    #expect(answers.allSatisfy { expected[$0.0] == $0.1 })
  }
}
