internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos

/// A day on the calendar, "2026-05-28": how due dates and scheduled dates are stored (text that
/// sorts in date order) and compared in the user's time zone.
struct CalendarDay: Sendable, Hashable, Comparable, CustomStringConvertible {
  var year: Int
  var month: Int
  var day: Int

  init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// The day `date` falls on in `timeZone`.
  init(_ date: Date, timeZone: TimeZone) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    self.init(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1)
  }

  /// Parses "YYYY-MM-DD"; nil for anything else (an empty text, say).
  init?(_ text: String) {
    let parts = text.split(separator: "-").compactMap { Int($0) }
    guard parts.count == 3, text.count == 10 else { return nil }
    self.init(year: parts[0], month: parts[1], day: parts[2])
  }

  var description: String { String(format: "%04d-%02d-%02d", year, month, day) }

  /// The day as date components.
  var components: Intentmesh_V1_DateComponents {
    .with {
      $0.year = Int32(year)
      $0.month = Int32(month)
      $0.day = Int32(day)
    }
  }

  /// The first instant of the day in `timeZone`.
  func start(in timeZone: TimeZone) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    return calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date(timeIntervalSince1970: 0)
  }

  /// The day `days` later.
  func adding(days: Int) -> CalendarDay {
    let zone = TimeZone.gmt
    return CalendarDay(start(in: zone).addingTimeInterval(Double(days) * 86_400), timeZone: zone)
  }

  static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }
}
