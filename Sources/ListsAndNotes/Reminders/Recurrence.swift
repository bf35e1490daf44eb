internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos

/// When a reminder comes due: its start, and again every `interval` minutes, hours, days, weeks,
/// months or years when it recurs ("remind me to leave work at 5 p.m. every day").
enum Recurrence {
  /// Whether the rule can be followed: no rule, or a frequency with a positive interval.
  static func isValid(_ rule: Intentmesh_V1_RecurrenceRule) -> Bool {
    if rule.frequency == .unspecified { return rule.interval == 0 }
    return rule.interval > 0
  }

  /// The due moments after `after` and not later than `through`, at most `limit` of them.
  static func occurrences(
    start: Date, rule: Intentmesh_V1_RecurrenceRule?, timeZone: TimeZone, after: Date, through: Date, limit: Int = 100
  ) -> [Date] {
    guard let rule, rule.frequency != .unspecified, rule.interval > 0 else {
      return start > after && start <= through ? [start] : []
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let component: Calendar.Component =
      switch rule.frequency {
      case .minute: .minute
      case .hourly: .hour
      case .daily: .day
      case .weekly: .weekOfYear
      case .monthly: .month
      default: .year
      }
    var found: [Date] = []
    var index = 0
    while found.count < limit, index < 100_000 {
      guard let next = calendar.date(byAdding: component, value: index * Int(rule.interval), to: start) else { break }
      if next > through { break }
      if next > after { found.append(next) }
      index += 1
    }
    return found
  }

  /// The first due moment after `after`, or nil when the reminder will not come due again.
  static func next(
    start: Date, rule: Intentmesh_V1_RecurrenceRule?, timeZone: TimeZone, after: Date
  ) -> Date? {
    occurrences(start: start, rule: rule, timeZone: timeZone, after: after, through: .distantFuture, limit: 1).first
  }
}
