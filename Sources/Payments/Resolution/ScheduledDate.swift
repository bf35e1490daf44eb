internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit

/// A transaction's scheduled date ("Transfer $10 tomorrow"): the day it names in the user's time
/// zone, today or later, at most a year ahead.
enum ScheduledDate {
  /// The latest day, in days from today, a transaction may be scheduled for.
  static let horizonDays = 365

  enum Check: Sendable, Equatable {
    /// Today, or no date given.
    case now
    case later(CalendarDay)
    case past(CalendarDay)
    case tooFar(CalendarDay)
    case unreadable

    /// Today or a later day within the horizon: a transaction can be booked for it.
    var isBookable: Bool {
      switch self {
      case .now, .later: true
      case .past, .tooFar, .unreadable: false
      }
    }
  }

  static func check(_ range: Intentmesh_V1_DateComponentsRange?, context: IntentContext) -> Check {
    guard let range, range.hasStartDateComponents || range.hasEndDateComponents else { return .now }
    let components = range.hasStartDateComponents ? range.startDateComponents : range.endDateComponents
    guard let date = CalendarDates.date(from: components, timeZone: context.timeZone, reference: context.now) else {
      return .unreadable
    }
    let day = CalendarDay(date, timeZone: context.timeZone)
    let today = CalendarDay(context.now, timeZone: context.timeZone)
    if day < today { return .past(day) }
    if day == today { return .now }
    if today.adding(days: horizonDays) < day { return .tooFar(day) }
    return .later(day)
  }

  /// The resolution of a transactionScheduledDate parameter.
  static func resolve(_ range: Intentmesh_V1_DateComponentsRange, given: Bool, context: IntentContext)
    -> ResolutionResult<Intentmesh_V1_DateComponentsRange>
  {
    guard given else { return .notRequired }
    switch check(range, context: context) {
    case .now: return .success(range)
    case .later(let day): return .success(.with { $0.startDateComponents = day.components })
    case .past(let day): return .unsupported(ResolutionReason(message: "\(day) is in the past."))
    case .tooFar(let day):
      return .unsupported(
        ResolutionReason(message: "\(day) is too far ahead: UnicornPay schedules up to \(horizonDays) days ahead."))
    case .unreadable: return .unsupported(ResolutionReason(message: "That date does not exist."))
    }
  }
}
