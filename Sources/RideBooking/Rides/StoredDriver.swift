internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// A driver and the vehicle they drive, and where they wait for a ride (their stable).
struct StoredDriver: Sendable, Equatable {
  var id: String
  var givenName: String
  var familyName: String
  var rating: String
  var phoneNumber: String
  var registrationPlate: String
  var stable: GeoPoint
  /// The ride holding the driver, and until when (its completion; its cancellation once
  /// cancelled). Free from then on.
  var heldBy: String
  var heldUntil: Date

  init(
    id: String, givenName: String, familyName: String, rating: String, phoneNumber: String, registrationPlate: String,
    stable: GeoPoint, heldBy: String = "", heldUntil: Date = .distantPast
  ) {
    self.heldBy = heldBy
    self.heldUntil = heldUntil
    self.id = id
    self.givenName = givenName
    self.familyName = familyName
    self.rating = rating
    self.phoneNumber = phoneNumber
    self.registrationPlate = registrationPlate
    self.stable = stable
  }

  /// Whether no ride holds the driver at `date`.
  func isFree(at date: Date) -> Bool { heldUntil <= date }

  var person: Intentmesh_V1_Person {
    .with {
      $0.displayName = "\(givenName) \(familyName)"
      $0.customIdentifier = id
      $0.nameComponents = .with {
        $0.givenName = givenName
        $0.familyName = familyName
      }
      $0.personHandle = .with {
        $0.value = phoneNumber
        $0.type = .phoneNumber
      }
    }
  }
}

/// Reads and writes the driver roster.
enum DriverRepository {
  static func drivers(in database: any SQLDatabase) async throws -> [StoredDriver] {
    try await database.raw(
      """
      SELECT driver_id, given_name, family_name, rating, phone_number, registration_plate, latitude, longitude,
             held_by, held_until
      FROM rides_drivers ORDER BY driver_id
      """
    ).all().map { row in
      StoredDriver(
        id: try row.decode(column: "driver_id", as: String.self),
        givenName: try row.decode(column: "given_name", as: String.self),
        familyName: try row.decode(column: "family_name", as: String.self),
        rating: try row.decode(column: "rating", as: String.self),
        phoneNumber: try row.decode(column: "phone_number", as: String.self),
        registrationPlate: try row.decode(column: "registration_plate", as: String.self),
        stable: GeoPoint(
          latitude: try row.decode(column: "latitude", as: Double.self),
          longitude: try row.decode(column: "longitude", as: Double.self)),
        heldBy: try row.decode(column: "held_by", as: String.self),
        heldUntil: Date(epochMilliseconds: try row.decode(column: "held_until", as: Int64.self)))
    }
  }

  static func add(_ driver: StoredDriver, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO rides_drivers (driver_id, given_name, family_name, rating, phone_number, registration_plate,
                                 latitude, longitude)
      VALUES (\(bind: driver.id), \(bind: driver.givenName), \(bind: driver.familyName), \(bind: driver.rating),
              \(bind: driver.phoneNumber), \(bind: driver.registrationPlate), \(bind: driver.stable.latitude),
              \(bind: driver.stable.longitude))
      """
    ).run()
  }

  /// Holds `driverID` for `rideID` until `until`, if no ride holds them at `now`: a compare-and-set,
  /// so of two bookings racing for one driver only one gets them. False when the driver is taken.
  static func hold(
    _ driverID: String, for rideID: String, at now: Date, until: Date, in database: any SQLDatabase
  ) async throws -> Bool {
    !(try await database.raw(
      """
      UPDATE rides_drivers SET held_by = \(bind: rideID), held_until = \(bind: until.epochMilliseconds)
      WHERE driver_id = \(bind: driverID) AND held_until <= \(bind: now.epochMilliseconds)
      RETURNING driver_id
      """
    ).all()).isEmpty
  }

  /// Frees the driver `rideID` holds, from `date` (the ride was cancelled).
  static func release(heldBy rideID: String, at date: Date, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE rides_drivers SET held_until = \(bind: date.epochMilliseconds)
      WHERE held_by = \(bind: rideID) AND held_until > \(bind: date.epochMilliseconds)
      """
    ).run()
  }

  /// The driver whose stable is nearest `pickup` (ties by id): who gets dispatched. With
  /// `freeAt`, only a driver no ride holds then. Walks the roster in place: only the one chosen
  /// is copied.
  static func nearest(to pickup: GeoPoint, among drivers: [StoredDriver], freeAt date: Date? = nil) -> StoredDriver? {
    var best: (index: Int, distance: Double)?
    for index in drivers.indices {
      if let date, !drivers[index].isFree(at: date) { continue }
      let distance = drivers[index].stable.distanceKilometres(to: pickup)
      guard let chosen = best else {
        best = (index, distance)
        continue
      }
      if distance < chosen.distance || (distance == chosen.distance && drivers[index].id < drivers[chosen.index].id) {
        best = (index, distance)
      }
    }
    return best.map { drivers[$0.index] }
  }
}
