internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos

/// The date components SiriKit shows a stored time (milliseconds since 1970) as.
enum NotebookTime {
  /// The calendar fields of `milliseconds` in `timeZone`, down to the minute.
  static func components(_ milliseconds: Int64, in timeZone: TimeZone) -> Intentmesh_V1_DateComponents {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents(
      [.year, .month, .day, .hour, .minute], from: Date(epochMilliseconds: milliseconds))
    return .with {
      $0.year = Int32(parts.year ?? 1970)
      $0.month = Int32(parts.month ?? 1)
      $0.day = Int32(parts.day ?? 1)
      $0.hour = Int32(parts.hour ?? 0)
      $0.minute = Int32(parts.minute ?? 0)
      $0.timeZone = timeZone.identifier
    }
  }
}
