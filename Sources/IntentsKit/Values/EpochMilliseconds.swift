package import Foundation

/// Times in rows: whole milliseconds since 1970 (an INTEGER column on both stores). One rounding
/// rule: to the nearest millisecond, so a time written and read back is the time that was meant,
/// whichever side of the millisecond the clock's fraction (or a `Date`'s binary fraction) fell.
extension Date {
  /// This time in whole milliseconds since 1970, rounded to the nearest.
  package var epochMilliseconds: Int64 { epochMilliseconds(.toNearestOrAwayFromZero) }

  /// This time in whole milliseconds since 1970, rounded by `rule`: `.down` for "now" in a check
  /// that something is due, so that it is never found due before its time.
  package func epochMilliseconds(_ rule: FloatingPointRoundingRule) -> Int64 {
    Int64((timeIntervalSince1970 * 1000).rounded(rule))
  }

  /// The time `epochMilliseconds` milliseconds after 1970.
  package init(epochMilliseconds: Int64) {
    self.init(timeIntervalSince1970: Double(epochMilliseconds) / 1000)
  }
}
