@testable import IntentsKit
@testable import IntentsRuntime
import Synchronization
import Testing

@Suite("AsyncLock")
struct AsyncLockTests {
  final class Holders: Sendable {
    let state = Mutex((now: 0, most: 0, done: 0))
    func enter() {
      state.withLock {
        $0.now += 1; $0.most = max($0.most, $0.now)
      }
    }
    func leave() {
      state.withLock {
        $0.now -= 1; $0.done += 1
      }
    }
  }

  @Test("holders run one at a time, whether the lock was free or taken, and every waiter gets it")
  func mutualExclusion() async {
    let lock = AsyncLock()
    let holders = Holders()
    await withTaskGroup(of: Void.self) { group in
      for n in 0..<200 {
        group.addTask {
          await lock.withLock {
            holders.enter()
            // Half the holders suspend while holding it, so that others queue behind them.
            if n.isMultiple(of: 2) { await Task.yield() }
            holders.leave()
          }
        }
      }
    }
    let (now, most, done) = holders.state.withLock { ($0.now, $0.most, $0.done) }
    #expect((now, most, done) == (0, 1, 200))
  }

  @Test("a body that throws releases the lock")
  func releasedOnThrow() async throws {
    struct Boom: Error {}
    let lock = AsyncLock()
    await #expect(throws: Boom.self) { try await lock.withLock { throw Boom() } }
    #expect(await lock.withLock { 7 } == 7)
  }
}
