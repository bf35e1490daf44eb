package import Foundation

/// The clock a domain's time-driven behaviour runs on (rides that move, reminders that come due).
/// Services use the wall clock; tests drive a `ManualClock`, so a whole ride runs in no time and no
/// test sleeps.
package protocol DomainClock: Sendable {
  func now() -> Date
  /// Returns at `deadline` (at once if it has passed); throws CancellationError when the task is
  /// cancelled first.
  func sleep(until deadline: Date) async throws
}

/// The wall clock.
package struct SystemClock: DomainClock {
  package init() {}

  package func now() -> Date { Date() }

  package func sleep(until deadline: Date) async throws {
    let seconds = deadline.timeIntervalSinceNow
    if seconds > 0 { try await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
    try Task.checkCancellation()
  }
}
