package import Foundation

/// A clock that runs `speed` times faster than the wall clock from `epoch` on: at the epoch it reads
/// the wall clock's time, and every wall-clock second after it moves `speed` seconds — a ten-minute
/// ride takes ten seconds at speed 60. For demos and end-to-end tests of things that take minutes
/// (`UNICORNRIDES_CLOCK_SPEED`); speed 1 is the wall clock.
///
/// It is a function of the wall clock and the epoch alone, so a service restarted with the same
/// epoch (`INTENTMESH_CLOCK_EPOCH`, which `intentmesh up` sets once for every service it supervises)
/// carries on where it was; one that started its own epoch again would go back in time by
/// `speed - 1` times its uptime, and rides it had finished would look unfinished.
package struct AcceleratedClock: DomainClock {
  /// The environment variable with the epoch, in seconds since 1970.
  static let epochVariable = "INTENTMESH_CLOCK_EPOCH"

  package let speed: Double
  package let epoch: Date
  private let wall: @Sendable () -> Date

  package init(speed: Double, epoch: Date = Date(), wall: @escaping @Sendable () -> Date = { Date() }) {
    self.speed = max(speed, 0.001)
    self.epoch = epoch
    self.wall = wall
  }

  /// The epoch `environment` names, or nil; an error when it is not a number of seconds.
  package static func epoch(from environment: [String: String]) throws -> Date? {
    guard let text = environment[epochVariable], !text.isEmpty else { return nil }
    guard let seconds = Double(text), seconds.isFinite, seconds >= 0 else {
      throw InvalidEpoch(description: "\(epochVariable) must be seconds since 1970, not \"\(text)\"")
    }
    return Date(timeIntervalSince1970: seconds)
  }

  struct InvalidEpoch: Error, CustomStringConvertible {
    let description: String
  }

  package func now() -> Date {
    epoch.addingTimeInterval(wall().timeIntervalSince(epoch) * speed)
  }

  package func sleep(until deadline: Date) async throws {
    let wait = deadline.timeIntervalSince(now()) / speed
    if wait > 0 { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
    try Task.checkCancellation()
  }
}
