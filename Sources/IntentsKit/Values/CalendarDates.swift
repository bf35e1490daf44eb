internal import SwiftProtobuf
package import Foundation
package import IntentMeshProtos

/// Turns SiriKit date components into instants in the user's time zone.
package enum CalendarDates {
  /// The instant `components` name, with absent fields filled from the start of their span (or its
  /// end when `end` is true) and an absent day taken from `reference`.
  package static func date(
    from components: Intentmesh_V1_DateComponents, timeZone: TimeZone, reference: Date, end: Bool = false
  ) -> Date? {
    var calendar = Calendar(identifier: .gregorian)
    let zone = components.timeZone.isEmpty ? timeZone : (TimeZone(identifier: components.timeZone) ?? timeZone)
    calendar.timeZone = zone
    let today = calendar.dateComponents([.year, .month, .day], from: reference)
    let hasDate = components.hasYear || components.hasMonth || components.hasDay
    var parts = DateComponents()
    parts.timeZone = zone
    parts.year = components.hasYear ? Int(components.year) : today.year
    parts.month = components.hasMonth ? Int(components.month) : (hasDate && !end ? 1 : (hasDate ? 12 : today.month))
    if components.hasDay {
      parts.day = Int(components.day)
    } else if hasDate {
      parts.day = end ? nil : 1
    } else {
      parts.day = today.day
    }
    parts.hour = components.hasHour ? Int(components.hour) : (end ? 23 : 0)
    parts.minute = components.hasMinute ? Int(components.minute) : (end ? 59 : 0)
    parts.second = components.hasSecond ? Int(components.second) : (end ? 59 : 0)
    if parts.day == nil {
      // The last day of the month.
      parts.day = 1
      guard let first = calendar.date(from: parts),
        let range = calendar.range(of: .day, in: .month, for: first)
      else { return nil }
      parts.day = range.count
    }
    return calendar.date(from: parts)
  }

  /// The closed interval a range names; an absent bound is open (nil). A range given by its
  /// start only, in whole calendar units ("that day", "yesterday", "in March": no hour, minute or
  /// second), means that unit: it ends where the unit does.
  package static func interval(
    of range: Intentmesh_V1_DateComponentsRange, timeZone: TimeZone, reference: Date
  ) -> (start: Date?, end: Date?) {
    let start =
      range.hasStartDateComponents
      ? date(from: range.startDateComponents, timeZone: timeZone, reference: reference) : nil
    if range.hasStartDateComponents, !range.hasEndDateComponents, isWholeUnits(range.startDateComponents) {
      return (start, date(from: range.startDateComponents, timeZone: timeZone, reference: reference, end: true))
    }
    let end =
      range.hasEndDateComponents
      ? date(from: range.endDateComponents, timeZone: timeZone, reference: reference, end: true) : nil
    return (start, end)
  }

  /// Whether `components` name a day, a month or a year, not a time within one.
  static func isWholeUnits(_ components: Intentmesh_V1_DateComponents) -> Bool {
    (components.hasYear || components.hasMonth || components.hasDay)
      && !components.hasHour && !components.hasMinute && !components.hasSecond
  }
}
