internal import Foundation
internal import IntentsKit
internal import SQLKit

/// A place of a user's, by name ("work", "home"): where a reminder "when I get to work" is about.
struct StoredUserPlace: Sendable, Equatable {
  var name: String
  var point: GeoPoint
  var radiusMeters: Double

  init(name: String, point: GeoPoint, radiusMeters: Double) {
    self.name = name
    self.point = point
    self.radiusMeters = radiusMeters
  }
}

/// Reads and writes users' places and their last reported location.
enum UserPlaceRepository {
  /// The user's places, by name.
  static func places(of userID: String, in database: any SQLDatabase) async throws -> [StoredUserPlace] {
    try await database.raw(
      """
      SELECT name, latitude, longitude, radius_meters FROM notes_places WHERE user_id = \(bind: userID)
      ORDER BY name_key
      """
    ).all().map { row in
      StoredUserPlace(
        name: try row.decode(column: "name", as: String.self),
        point: GeoPoint(
          latitude: try row.decode(column: "latitude", as: Double.self),
          longitude: try row.decode(column: "longitude", as: Double.self)),
        radiusMeters: try row.decode(column: "radius_meters", as: Double.self))
    }
  }

  /// Stores `place`, replacing the user's place of the same name (any case).
  static func set(_ place: StoredUserPlace, for userID: String, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO notes_places (user_id, name_key, name, latitude, longitude, radius_meters)
      VALUES (\(bind: userID), \(bind: place.name.lowercased()), \(bind: place.name), \(bind: place.point.latitude),
              \(bind: place.point.longitude), \(bind: place.radiusMeters))
      ON CONFLICT (user_id, name_key) DO UPDATE SET name = excluded.name, latitude = excluded.latitude,
        longitude = excluded.longitude, radius_meters = excluded.radius_meters
      """
    ).run()
  }

  /// Where the user last said they were, if they ever did.
  static func lastLocation(of userID: String, in database: any SQLDatabase) async throws -> GeoPoint? {
    try await database.raw("SELECT latitude, longitude FROM notes_locations WHERE user_id = \(bind: userID)")
      .first().map { row in
        GeoPoint(
          latitude: try row.decode(column: "latitude", as: Double.self),
          longitude: try row.decode(column: "longitude", as: Double.self))
      }
  }

  static func setLocation(_ point: GeoPoint, of userID: String, at date: Date, in database: any SQLDatabase)
    async throws
  {
    try await database.raw(
      """
      INSERT INTO notes_locations (user_id, latitude, longitude, reported_at)
      VALUES (\(bind: userID), \(bind: point.latitude), \(bind: point.longitude), \(bind: date.epochMilliseconds))
      ON CONFLICT (user_id) DO UPDATE SET latitude = excluded.latitude, longitude = excluded.longitude,
        reported_at = excluded.reported_at
      """
    ).run()
  }
}
