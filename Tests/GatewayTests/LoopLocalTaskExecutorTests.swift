import NIOCore
import NIOPosix
@testable import ServiceKit
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
