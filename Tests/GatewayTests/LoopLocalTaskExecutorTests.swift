import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import NIOCore
import NIOPosix
@testable import ServiceKit
import Synchronization
import Testing

@Suite("Calls on their connection's event loop")
struct LoopLocalTaskExecutorTests {
  @Test("a job enqueued on an event loop runs on that loop; one enqueued elsewhere runs on a loop of the group")
  func staysOnTheEnqueuingLoop() async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 3)
    let executor = LoopLocalTaskExecutor(group: group)
    for loop in group.makeIterator() {
      // Started from the loop, and resumed by it (as a call is by its connection's reads), it
      // runs there throughout.
      let observed = try await loop.submit {
        Task(executorPreference: executor) { () async throws -> [Bool] in
          let first = loop.inEventLoop
          try await loop.scheduleTask(in: .milliseconds(2)) {}.futureResult.get()
          let afterWait = loop.inEventLoop
          await Task.yield()
          return [first, afterWait, loop.inEventLoop]
        }
      }.get().value
      #expect(observed == [true, true, true])
    }
    // From a thread that is no loop: some loop of the group, never Swift's shared threads.
    let onSomeLoop = await withTaskExecutorPreference(executor) {
      MultiThreadedEventLoopGroup.currentEventLoop.map { current in
        group.makeIterator().contains { $0 === current }
      }
    }
    #expect(onSomeLoop == true)
    try await group.shutdownGracefully()
  }
}

/// Notes whether each call it sees runs on an event loop of the process's group.
private final class LoopProbe: ServerInterceptor {
  let seen = Mutex<[Bool]>([])

  func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>, context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    seen.withLock { $0.append(MultiThreadedEventLoopGroup.currentEventLoop != nil) }
    return try await next(request, context)
  }
}

@Suite("A gRPC server's calls on either executor")
struct GRPCServerServiceExecutorTests {
  @Test(
    "event-loop runs each call on a loop; pool on Swift's shared threads",
    arguments: [CallExecutor.eventLoop, .pool])
  func callsRunWhereTold(calls: CallExecutor) async throws {
    let probe = LoopProbe()
    let board = HealthStatusBoard()
    board.set(.serving, for: "")
    let server = GRPCServer(
      transport: HTTP2ServerTransport.Posix(
        address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
      services: [HealthService(board: board)], interceptors: [probe])
    try await withThrowingDiscardingTaskGroup { group in
      group.addTask { try await GRPCServerService(server: server, calls: calls).run() }
      guard let address = try await server.listeningAddress?.ipv4 else { throw CancellationError() }
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: address.host, port: address.port), transportSecurity: .plaintext)
      try await withGRPCClient(transport: transport) { client in
        let health = Grpc_Health_V1_Health.Client(wrapping: client)
        for _ in 0..<5 { _ = try await health.check(.init()) }
      }
      server.beginGracefulShutdown()
    }
    #expect(probe.seen.withLock { $0 } == Array(repeating: calls == .eventLoop, count: 5))
  }
}
