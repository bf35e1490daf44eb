internal import Foundation
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The rules for a reminder's triggers. Temporal ("at 5 p.m."): a time that has not passed, and a
/// recurrence that can be followed. Spatial ("when I get to work"): a place and arrive or depart.
enum TriggerRules {
  /// The instant a temporal trigger first comes due, in the user's time zone.
  static func start(of trigger: TemporalEventTrigger, context: IntentContext) -> Date? {
    let range = trigger.dateComponentsRange
    guard range.hasStartDateComponents || range.hasEndDateComponents else { return nil }
    return CalendarDates.date(
      from: range.hasStartDateComponents ? range.startDateComponents : range.endDateComponents,
      timeZone: context.timeZone, reference: context.now)
  }

  static func resolveTemporal(_ trigger: TemporalEventTrigger, given: Bool, context: IntentContext)
    -> ResolutionResult<TemporalEventTrigger>
  {
    guard given else { return .notRequired }
    guard let start = start(of: trigger, context: context) else {
      return .unsupported(ResolutionReason(message: "That reminder has no time."))
    }
    if trigger.dateComponentsRange.hasRecurrenceRule, !Recurrence.isValid(trigger.dateComponentsRange.recurrenceRule) {
      return .unsupported(
        ResolutionReason(TemporalUnsupportedReason.invalidRecurrence, "That reminder can't repeat like that."))
    }
    let recurs = trigger.dateComponentsRange.recurrenceRule.frequency != .unspecified
    if start < context.now, !recurs {
      return .unsupported(ResolutionReason(TemporalUnsupportedReason.timeInPast, "That time has already passed."))
    }
    return .success(trigger)
  }

  static func resolveSpatial(_ trigger: SpatialEventTrigger, given: Bool) -> ResolutionResult<
    SpatialEventTrigger
  > {
    guard given else { return .notRequired }
    let place = trigger.placemark
    guard !place.name.isEmpty || place.hasLocation || !place.thoroughfare.isEmpty else {
      return .unsupported(ResolutionReason(message: "That reminder has no place."))
    }
    guard trigger.event == .arrive || trigger.event == .depart else {
      return .unsupported(ResolutionReason(message: "Say whether to remind you when you arrive or when you leave."))
    }
    return .success(trigger)
  }

  /// The first instant a valid temporal trigger comes due at or after now (its start, or the next
  /// repetition when the start has passed).
  static func dueAt(_ trigger: TemporalEventTrigger, context: IntentContext) -> Date? {
    guard let start = start(of: trigger, context: context) else { return nil }
    if start >= context.now { return start }
    let rule = trigger.dateComponentsRange.hasRecurrenceRule ? trigger.dateComponentsRange.recurrenceRule : nil
    return Recurrence.next(
      start: start, rule: rule, timeZone: context.timeZone, after: context.now.addingTimeInterval(-1))
  }
}
