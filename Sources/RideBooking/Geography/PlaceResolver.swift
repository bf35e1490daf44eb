internal import Foundation
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// The programming guide's rule for a pickup or drop-off: inside the service area → success,
/// outside → unsupported, missing → needs value. A placemark without coordinates is looked up by
/// name among the known places.
struct PlaceResolver: Sendable {
  let area: ServiceArea
  let places: [StoredKnownPlace]

  init(area: ServiceArea, places: [StoredKnownPlace]) {
    self.area = area
    self.places = places
  }

  /// True when the placemark names nothing.
  static func isEmpty(_ placemark: Intentmesh_V1_Placemark) -> Bool {
    GeoPoint(placemark) == nil && placemark.name.isEmpty && placemark.thoroughfare.isEmpty
  }

  /// The places a placemark without coordinates may mean.
  func candidates(for placemark: Intentmesh_V1_Placemark) -> [StoredKnownPlace] {
    let spoken = SpokenNames(placemark)
    return places.filter(spoken.matches)
  }

  /// The placemark with coordinates: as given, or the one known place its name means.
  func located(_ placemark: Intentmesh_V1_Placemark) -> Intentmesh_V1_Placemark? {
    if GeoPoint(placemark) != nil { return placemark }
    let spoken = SpokenNames(placemark)
    var found: Int?
    for index in places.indices where spoken.matches(places[index]) {
      guard found == nil else { return nil }
      found = index
    }
    return found.map { places[$0].placemark }
  }

  /// A placemark's name and thoroughfare, folded as the places' names are (`NameMatching`).
  private struct SpokenNames {
    let name: String?
    let thoroughfare: String?

    init(_ placemark: borrowing Intentmesh_V1_Placemark) {
      name = placemark.name.isEmpty ? nil : NameMatching.normalized(placemark.name)
      thoroughfare = placemark.thoroughfare.isEmpty ? nil : NameMatching.normalized(placemark.thoroughfare)
    }

    /// Whether `place` answers to either.
    func matches(_ place: StoredKnownPlace) -> Bool {
      place.foldedNames.contains { $0 == name || $0 == thoroughfare }
    }
  }

  func resolve(_ placemark: Intentmesh_V1_Placemark, prompt: String) -> ResolutionResult<
    Intentmesh_V1_Placemark
  > {
    guard !Self.isEmpty(placemark) else { return .needsValue(prompt: prompt) }
    if let point = GeoPoint(placemark) {
      return area.contains(point) ? .success(placemark) : outside(placemark)
    }
    let found = candidates(for: placemark)
    switch found.count {
    case 0:
      return .unsupported(ResolutionReason(message: "UnicornRides can't find \(placemark.displayText)."))
    case 1:
      return area.contains(found[0].point) ? .success(found[0].placemark) : outside(found[0].placemark)
    default:
      return .disambiguation(found.map(\.placemark), prompt: "Which \(placemark.displayText)?")
    }
  }

  private func outside(_ placemark: Intentmesh_V1_Placemark) -> ResolutionResult<Intentmesh_V1_Placemark> {
    .unsupported(
      ResolutionReason(
        PlacemarkUnsupportedReason.outsideServiceArea,
        "\(placemark.displayText.isEmpty ? "That place" : placemark.displayText) is outside UnicornRides' service area."
      ))
  }
}
