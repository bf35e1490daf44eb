internal import Foundation
internal import SwiftProtobuf
package import IntentMeshProtos

/// A point on the earth in degrees.
package struct GeoPoint: Sendable, Equatable, Hashable {
  package var latitude: Double
  package var longitude: Double

  package init(latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }

  /// The point of a placemark's location; nil when it has none.
  package init?(_ placemark: borrowing Intentmesh_V1_Placemark) {
    guard placemark.hasLocation, placemark.location.latitude != 0 || placemark.location.longitude != 0 else {
      return nil
    }
    self.init(latitude: placemark.location.latitude, longitude: placemark.location.longitude)
  }

  /// Great-circle distance in kilometres (haversine).
  package func distanceKilometres(to other: GeoPoint) -> Double {
    let radius = 6_371.0
    let dLat = (other.latitude - latitude) * .pi / 180
    let dLon = (other.longitude - longitude) * .pi / 180
    let a =
      sin(dLat / 2) * sin(dLat / 2) + cos(latitude * .pi / 180) * cos(other.latitude * .pi / 180) * sin(dLon / 2)
      * sin(dLon / 2)
    return 2 * radius * atan2(sqrt(a), sqrt(1 - a))
  }

  /// The point `fraction` of the way to `other` (0 → self, 1 → other).
  package func interpolated(to other: GeoPoint, fraction: Double) -> GeoPoint {
    let f = min(1, max(0, fraction))
    return GeoPoint(
      latitude: latitude + (other.latitude - latitude) * f, longitude: longitude + (other.longitude - longitude) * f)
  }

  /// The point as a location message, rounded to six decimals (about 0.1 m).
  package var location: Intentmesh_V1_Location {
    .with {
      $0.latitude = (latitude * 1_000_000).rounded() / 1_000_000
      $0.longitude = (longitude * 1_000_000).rounded() / 1_000_000
    }
  }
}
