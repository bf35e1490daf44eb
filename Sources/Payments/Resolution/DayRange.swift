internal import Foundation
internal import SwiftProtobuf
package import IntentMeshProtos
package import IntentsKit

/// The days a date components range covers in the user's time zone; an absent bound is open.
package struct DayRange: Sendable, Equatable {
  package var first: CalendarDay?
  package var last: CalendarDay?

  package init(_ range: Intentmesh_V1_DateComponentsRange, context: IntentContext) {
    let interval = CalendarDates.interval(of: range, timeZone: context.timeZone, reference: context.now)
    first = interval.start.map { CalendarDay($0, timeZone: context.timeZone) }
    last = interval.end.map { CalendarDay($0, timeZone: context.timeZone) }
  }

  package func contains(_ day: CalendarDay) -> Bool {
    if let first, day < first { return false }
    if let last, last < day { return false }
    return true
  }
}
