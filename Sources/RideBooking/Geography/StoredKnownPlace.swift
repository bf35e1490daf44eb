internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit
internal import IntentMeshCore

/// A place UnicornRides knows by name ("300 Post Street", "the forest"), for placemarks a client
/// sends without coordinates.
struct StoredKnownPlace: Sendable, Equatable {
  let name: String
  /// Other names it answers to, e.g. "the forest".
  let aliases: [String]
  var point: GeoPoint
  var thoroughfare: String
  var locality: String
  /// The name and aliases, folded for matching (`NameMatching`) once, when the place is made.
  let foldedNames: [String]

  init(name: String, aliases: [String] = [], point: GeoPoint, thoroughfare: String = "", locality: String) {
    self.name = name
    self.aliases = aliases
    self.point = point
    self.thoroughfare = thoroughfare
    self.locality = locality
    foldedNames = ([name] + aliases).map(NameMatching.normalized)
  }

  var placemark: Intentmesh_V1_Placemark {
    .with {
      $0.name = name
      $0.location = point.location
      $0.thoroughfare = thoroughfare
      $0.locality = locality
      $0.isoCountryCode = "US"
    }
  }
}

/// Reads and writes known places.
enum PlaceRepository {
  static func places(in database: any SQLDatabase) async throws -> [StoredKnownPlace] {
    // Everyone's: kept under no user.
    try await database.cachedRead("rides.places", userID: "") {
      try await database.raw(
        "SELECT name, aliases, latitude, longitude, thoroughfare, locality FROM rides_places ORDER BY name"
      ).all().map { row in
        StoredKnownPlace(
          name: try row.decode(column: "name", as: String.self),
          aliases: try row.decode(column: "aliases", as: String.self).split(separator: ";").map(String.init),
          point: GeoPoint(
            latitude: try row.decode(column: "latitude", as: Double.self),
            longitude: try row.decode(column: "longitude", as: Double.self)),
          thoroughfare: try row.decode(column: "thoroughfare", as: String.self),
          locality: try row.decode(column: "locality", as: String.self))
      }
    }
  }

  static func add(_ place: StoredKnownPlace, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO rides_places (name, aliases, latitude, longitude, thoroughfare, locality)
      VALUES (\(bind: place.name), \(bind: place.aliases.joined(separator: ";")), \(bind: place.point.latitude),
              \(bind: place.point.longitude), \(bind: place.thoroughfare), \(bind: place.locality))
      """
    ).run()
  }
}
