internal import NIOCore

/// A budget of events that refills over time (a token bucket): `capacity` events at once, and as
/// many again over each `window`. A connection's glitches, control frames and upstream resets
/// each spend from one; the first event the budget cannot pay for is the one the relay answers
/// with ENHANCE_YOUR_CALM. Time is passed in, so the budget is tested without waiting.
struct RateBudget {
  let capacity: Int
  /// Events regained per nanosecond.
  private let refillRate: Double
  /// Events the budget can pay for now (fractions accumulate as time passes).
  private var available: Double
  private var refilledAt: NIODeadline

  init(capacity: Int, window: Duration, now: NIODeadline) {
    self.capacity = max(capacity, 0)
    let (seconds, attoseconds) = window.components
    let nanoseconds = max(Double(seconds) * 1e9 + Double(attoseconds) / 1e9, 1)
    self.refillRate = Double(self.capacity) / nanoseconds
    self.available = Double(self.capacity)
    self.refilledAt = now
  }

  /// Pays for one event at `now`; false when the budget is spent.
  mutating func spend(now: NIODeadline) -> Bool {
    refill(now: now)
    guard available >= 1 else { return false }
    available -= 1
    return true
  }

  /// Whole events the budget can pay for at `now`.
  mutating func remaining(now: NIODeadline) -> Int {
    refill(now: now)
    return Int(available)
  }

  private mutating func refill(now: NIODeadline) {
    let elapsed = (now - refilledAt).nanoseconds
    guard elapsed > 0 else { return }
    refilledAt = now
    available = min(Double(capacity), available + Double(elapsed) * refillRate)
  }
}
