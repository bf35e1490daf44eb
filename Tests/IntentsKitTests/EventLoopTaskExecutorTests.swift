import IntentsKit
import IntentsKitTesting
@testable import IntentsRuntime
import NIOCore
import NIOPosix
import SQLKit
import Testing

@Suite("Transactions on their connection's event loop")
struct EventLoopTaskExecutorTests {
  @Test("a task preferring a loop's executor runs on that loop, before and after it waits")
  func runsOnTheLoop() async throws {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
    let loop = group.next()
    let observed = await withTaskExecutorPreference(EventLoopTaskExecutor(loop)) {
      let before = loop.inEventLoop
      try? await Task.sleep(for: .milliseconds(5))
      // Resumed by a timer on another thread: the job still comes back to the loop.
      return (before, loop.inEventLoop)
    }
    #expect(observed == (true, true))
    #expect(!loop.inEventLoop)
    try await group.shutdownGracefully()
  }

  @Test(
    "a PostgreSQL transaction's statements run on its connection's event loop",
    .enabled(if: TestStore.postgresURL != nil, "set INTENTMESH_TEST_POSTGRES_URL to run"))
  func postgresTransactionsOnTheConnectionsLoop() async throws {
    try await TestStore.with(named: "loop") { store in
      let body: @Sendable (any SQLDatabase) async throws -> [Bool] = { database in
        var onLoop = [database.eventLoop.inEventLoop]
        for _ in 0..<3 {
          try await database.raw("SELECT 1 AS one").run()
          onLoop.append(database.eventLoop.inEventLoop)
        }
        return onLoop
      }
      let (read, written) = (try await store.read(body), try await store.write(body))
      #expect(read == [true, true, true, true])
      #expect(written == [true, true, true, true])
    }
  }
}
