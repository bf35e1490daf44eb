/// A wait a test could not finish: what it waited for and for how long.
package struct WaitTimedOut: Error, CustomStringConvertible {
  package let what: String
  package let limit: Duration

  package var description: String { "timed out after \(limit) waiting until \(what)" }
}

/// Polls `condition` until it holds; throws `WaitTimedOut` once `limit` of wall time has passed.
///
/// Every wait in a test is bounded: a condition that never comes (a stream the server never saw
/// end, a process that never answered) fails the test that waits, with what it waited for, instead
/// of hanging the whole run. The poll sleeps, so a cancelled test stops waiting too.
package func waitUntil(
  _ what: @autoclosure () -> String, limit: Duration = .seconds(20), every interval: Duration = .milliseconds(10),
  _ condition: () async throws -> Bool
) async throws {
  let deadline = ContinuousClock.now + limit
  while !(try await condition()) {
    guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what(), limit: limit) }
    try await Task.sleep(for: interval)
  }
}
