internal import Foundation
internal import IntentMeshProtos
internal import ListsAndNotesProtos
internal import IntentsKit
internal import IntentMeshCore

/// Which place reminders a user's move fires: "when I get to work" when they enter the place,
/// "when I leave home" when they leave it. A reminder's place is its placemark's own location
/// (within `defaultRadiusMeters`), or else the user's place of its name.
struct PlaceReminders: Sendable {
  static let defaultRadiusMeters = 150.0

  let reminders: [StoredTask]
  let places: [StoredUserPlace]

  init(reminders: [StoredTask], places: [StoredUserPlace]) {
    self.reminders = reminders
    self.places = places
  }

  /// The area `task`'s trigger is about; nil when its place has no location and names no place
  /// of the user's.
  func area(of task: StoredTask) -> (center: GeoPoint, radiusMeters: Double)? {
    guard let placemark = task.spatialTrigger?.placemark else { return nil }
    if let point = GeoPoint(placemark) { return (point, Self.defaultRadiusMeters) }
    let named = [placemark.name, placemark.thoroughfare].filter { !$0.isEmpty }
    guard let place = places.first(where: { place in named.contains { NameMatching.matches($0, place.name) } }) else {
      return nil
    }
    return (place.point, place.radiusMeters)
  }

  /// The reminders a move from `from` (nil: the first report) to `to` fires, each with why: the
  /// place entered (arrive) or left (depart). A first report fires arrivals only.
  func fired(from: GeoPoint?, to: GeoPoint) -> [(task: StoredTask, cause: ReminderInbox.Cause)] {
    reminders.compactMap { task in
      guard let trigger = task.spatialTrigger, let area = area(of: task) else { return nil }
      let inside = { (point: GeoPoint) in point.distanceKilometres(to: area.center) * 1000 <= area.radiusMeters }
      let wasInside = from.map(inside)
      let isInside = inside(to)
      switch trigger.event {
      case .arrive where isInside && wasInside != true: return (task, .arrive)
      case .depart where !isInside && wasInside == true: return (task, .depart)
      default: return nil
      }
    }
  }
}
