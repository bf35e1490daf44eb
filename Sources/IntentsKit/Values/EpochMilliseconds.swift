package import Foundation

/// Times in rows and tokens: whole milliseconds since 1970 (an INTEGER column on both stores).
/// One rounding rule everywhere: to the nearest millisecond, so a time written and read back is the
/// time that was meant, whichever side of the millisecond the clock's fraction fell.
extension Date {
  /// This time in whole milliseconds since 1970, rounded to the nearest.
  package var epochMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

  /// The time `epochMilliseconds` milliseconds after 1970.
  package init(epochMilliseconds: Int64) {
    self.init(timeIntervalSince1970: Double(epochMilliseconds) / 1000)
  }
}
