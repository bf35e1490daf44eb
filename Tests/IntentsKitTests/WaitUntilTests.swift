import IntentsKitTesting
import Synchronization
import Testing

/// `waitUntil`, the bounded wait every polling test goes through: it returns once its condition
/// holds and throws, naming what it waited for, once its limit has passed. The limits are generous:
/// under the full suite other tests can hold this process's threads for seconds (seen in CI: ten).
@Suite("waitUntil: every wait in a test is bounded")
struct WaitUntilTests {
  @Test("returns as soon as the condition holds, polling until it does")
  func returnsWhenTheConditionHolds() async throws {
    let polls = Atomic<Int>(0)
    try await waitUntil("the third poll", limit: .seconds(120), every: .milliseconds(1)) {
      polls.add(1, ordering: .relaxed).newValue >= 3
    }
    #expect(polls.load(ordering: .relaxed) == 3)
  }

  @Test("throws WaitTimedOut with what it waited for once the limit has passed, not before")
  func throwsAfterTheLimit() async throws {
    let started = ContinuousClock.now
    let error = await #expect(throws: WaitTimedOut.self) {
      try await waitUntil("a condition that never holds", limit: .milliseconds(200)) { false }
    }
    let waited = ContinuousClock.now - started
    #expect(waited >= .milliseconds(200))
    #expect(waited < .seconds(120))
    #expect(error?.description.contains("a condition that never holds") == true)
  }

  @Test("a cancelled wait ends at once with CancellationError")
  func endsWhenCancelled() async throws {
    let task = Task { try await waitUntil("never", limit: .seconds(60)) { false } }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }
}
