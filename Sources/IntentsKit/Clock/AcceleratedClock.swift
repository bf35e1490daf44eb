package import Foundation

/// A clock that runs `speed` times faster than the wall clock from the moment it is made: a
/// ten-minute ride takes ten seconds at speed 60. For demos and end-to-end tests of things that take
/// minutes (`UNICORNRIDES_CLOCK_SPEED`); speed 1 is the wall clock.
package struct AcceleratedClock: DomainClock {
  package let speed: Double
  let origin: Date
  let started: ContinuousClock.Instant

  package init(speed: Double, origin: Date = Date()) {
    self.speed = max(speed, 0.001)
    self.origin = origin
    started = .now
  }

  package func now() -> Date {
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return origin.addingTimeInterval(seconds * speed)
  }

  package func sleep(until deadline: Date) async throws {
    let wait = deadline.timeIntervalSince(now()) / speed
    if wait > 0 { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
    try Task.checkCancellation()
  }
}
