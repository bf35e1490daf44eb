package import IntentsKit
internal import Foundation

/// Where UnicornRides picks up and drops off: a polygon (ray casting) or a circle, from the
/// service's configuration (`UNICORNRIDES_SERVICE_AREA`):
///
///     polygon:37.8120,-122.5150;37.8120,-122.3550;37.7080,-122.3550;37.7080,-122.5150
///     circle:37.7749,-122.4194,12        (centre latitude, longitude, radius in km)
package enum ServiceArea: Sendable, Equatable {
  case polygon([GeoPoint])
  case circle(center: GeoPoint, radiusKilometres: Double)

  /// San Francisco, from the Presidio to Hunters Point: where the sessions' rides go.
  package static let sanFrancisco = ServiceArea.polygon([
    GeoPoint(latitude: 37.8120, longitude: -122.5150), GeoPoint(latitude: 37.8120, longitude: -122.3550),
    GeoPoint(latitude: 37.7080, longitude: -122.3550), GeoPoint(latitude: 37.7080, longitude: -122.5150),
  ])

  struct ParseError: Error, CustomStringConvertible {
    let description: String
  }

  /// Reads the configuration text described above.
  static func parse(_ text: String) throws -> ServiceArea {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    func numbers(_ part: Substring) throws -> [Double] {
      try part.split(separator: ",").map {
        guard let value = Double($0.trimmingCharacters(in: .whitespaces)) else {
          throw ParseError(description: "\"\($0)\" is not a number in service area \"\(text)\"")
        }
        return value
      }
    }
    if trimmed.hasPrefix("circle:") {
      let values = try numbers(trimmed.dropFirst("circle:".count))
      guard values.count == 3, values[2] > 0 else {
        throw ParseError(description: "a circle is circle:LATITUDE,LONGITUDE,RADIUS_KM, not \"\(text)\"")
      }
      return .circle(center: GeoPoint(latitude: values[0], longitude: values[1]), radiusKilometres: values[2])
    }
    if trimmed.hasPrefix("polygon:") {
      let points = try trimmed.dropFirst("polygon:".count).split(separator: ";").map { pair in
        let values = try numbers(pair)
        guard values.count == 2 else { throw ParseError(description: "\"\(pair)\" is not LATITUDE,LONGITUDE") }
        return GeoPoint(latitude: values[0], longitude: values[1])
      }
      guard points.count >= 3 else { throw ParseError(description: "a polygon needs at least three points") }
      return .polygon(points)
    }
    throw ParseError(description: "service area must start with polygon: or circle:, not \"\(text)\"")
  }

  func contains(_ point: GeoPoint) -> Bool {
    switch self {
    case .circle(let center, let radius):
      return center.distanceKilometres(to: point) <= radius
    case .polygon(let vertices):
      var inside = false
      var j = vertices.count - 1
      for i in vertices.indices {
        let a = vertices[i]
        let b = vertices[j]
        if (a.latitude > point.latitude) != (b.latitude > point.latitude),
          point.longitude < (b.longitude - a.longitude) * (point.latitude - a.latitude) / (b.latitude - a.latitude)
            + a.longitude
        {
          inside.toggle()
        }
        j = i
      }
      return inside
    }
  }
}
