internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit

/// Conversions between instants and the date components SiriKit uses for pickup times.
enum RideTimes {
  /// A range that starts at `date` (in UTC components, with the zone named).
  static func range(_ date: Date) -> Intentmesh_V1_DateComponentsRange {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = .gmt
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    return .with {
      $0.startDateComponents = .with {
        $0.year = Int32(parts.year ?? 1970)
        $0.month = Int32(parts.month ?? 1)
        $0.day = Int32(parts.day ?? 1)
        $0.hour = Int32(parts.hour ?? 0)
        $0.minute = Int32(parts.minute ?? 0)
        $0.second = Int32(parts.second ?? 0)
        $0.timeZone = "UTC"
      }
    }
  }

  /// The instant a pickup time range starts, in the rider's time zone; nil when it names none.
  static func start(of range: Intentmesh_V1_DateComponentsRange, context: IntentContext) -> Date? {
    guard range.hasStartDateComponents else { return nil }
    return CalendarDates.date(from: range.startDateComponents, timeZone: context.timeZone, reference: context.now)
  }
}
