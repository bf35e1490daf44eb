internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit

/// The days a date components range covers in the user's time zone; an absent bound is open.
struct DayRange: Sendable, Equatable {
  var first: CalendarDay?
  var last: CalendarDay?

  init(_ range: Intentmesh_V1_DateComponentsRange, context: IntentContext) {
    let interval = CalendarDates.interval(of: range, timeZone: context.timeZone, reference: context.now)
    first = interval.start.map { CalendarDay($0, timeZone: context.timeZone) }
    last = interval.end.map { CalendarDay($0, timeZone: context.timeZone) }
  }

  func contains(_ day: CalendarDay) -> Bool {
    if let first, day < first { return false }
    if let last, last < day { return false }
    return true
  }
}
