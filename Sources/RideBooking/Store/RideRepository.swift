internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// Reads and writes rides. Places are stored as their protobuf JSON.
enum RideRepository {
  static let columns: SQLQueryString = """
    ride_id, user_id, offer_id, party_size, pickup, drop_off, booked_at, scheduled_pickup_at, driver_id, fare_cents,
    maximum_fare_cents, surge, payment_method_name, canceled_at, cancellation_fee_cents, rating, tip_cents
    """

  /// Stores a booked ride that completes at `completesAt` unless cancelled (when its fare is charged).
  /// The columns as `r.`-prefixed (for joins and subqueries).
  static let prefixedColumns: SQLQueryString = """
    r.ride_id, r.user_id, r.offer_id, r.party_size, r.pickup, r.drop_off, r.booked_at, r.scheduled_pickup_at,
    r.driver_id, r.fare_cents, r.maximum_fare_cents, r.surge, r.payment_method_name, r.canceled_at,
    r.cancellation_fee_cents, r.rating, r.tip_cents
    """

  static func insert(_ ride: StoredRide, completesAt: Date, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO rides_rides (\(columns), completes_at)
      VALUES (\(bind: ride.id), \(bind: ride.userID), \(bind: ride.offerID), \(bind: ride.partySize),
              \(bind: try ride.pickup.jsonString()), \(bind: try ride.dropOff.jsonString()),
              \(bind: ride.bookedAt.epochMilliseconds), \(bind: ride.scheduledPickup.map(\.epochMilliseconds)),
              \(bind: ride.driverID), \(bind: ride.fareCents), \(bind: ride.maximumFareCents), \(bind: ride.surge),
              \(bind: ride.paymentMethodName), \(bind: ride.canceledAt.map(\.epochMilliseconds)),
              \(bind: ride.cancellationFeeCents), \(bind: ride.rating), \(bind: ride.tipCents),
              \(bind: completesAt.epochMilliseconds))
      """
    ).run()
  }

  static func ride(_ id: String, in database: any SQLDatabase) async throws -> StoredRide? {
    try await database.raw("SELECT \(columns) FROM rides_rides WHERE ride_id = \(bind: id)").first().map(decode)
  }

  /// The user's rides, most recently booked first.
  static func rides(of userID: String, in database: any SQLDatabase) async throws -> [StoredRide] {
    try await database.raw(
      "SELECT \(columns) FROM rides_rides WHERE user_id = \(bind: userID) ORDER BY booked_at DESC, ride_id DESC"
    ).all().map(decode)
  }

  /// The user's latest `limit` rides, most recently booked first.
  static func rides(of userID: String, limit: Int, in database: any SQLDatabase) async throws -> [StoredRide] {
    try await database.raw(
      """
      SELECT \(columns) FROM rides_rides WHERE user_id = \(bind: userID)
      ORDER BY booked_at DESC, ride_id DESC LIMIT \(bind: limit)
      """
    ).all().map(decode)
  }

  static func cancel(_ id: String, at date: Date, feeCents: Int64, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE rides_rides SET canceled_at = \(bind: date.epochMilliseconds), cancellation_fee_cents = \(bind: feeCents)
      WHERE ride_id = \(bind: id) AND canceled_at IS NULL
      """
    ).run()
  }

  static func recordFeedback(_ id: String, rating: Int?, tipCents: Int64?, in database: any SQLDatabase)
    async throws
  {
    try await database.raw(
      "UPDATE rides_rides SET rating = \(bind: rating), tip_cents = \(bind: tipCents) WHERE ride_id = \(bind: id)"
    ).run()
  }

  static func decode(_ row: any SQLRow) throws -> StoredRide {
    StoredRide(
      id: try row.decode(column: "ride_id", as: String.self),
      userID: try row.decode(column: "user_id", as: String.self),
      offerID: try row.decode(column: "offer_id", as: String.self),
      partySize: try row.decode(column: "party_size", as: Int.self),
      pickup: try Intentmesh_V1_Placemark(jsonString: try row.decode(column: "pickup", as: String.self)),
      dropOff: try Intentmesh_V1_Placemark(jsonString: try row.decode(column: "drop_off", as: String.self)),
      bookedAt: Date(epochMilliseconds: try row.decode(column: "booked_at", as: Int64.self)),
      scheduledPickup: try row.decode(column: "scheduled_pickup_at", as: Int64?.self).map(
        Date.init(epochMilliseconds:)),
      driverID: try row.decode(column: "driver_id", as: String.self),
      fareCents: try row.decode(column: "fare_cents", as: Int64.self),
      maximumFareCents: try row.decode(column: "maximum_fare_cents", as: Int64.self),
      surge: try row.decode(column: "surge", as: String.self),
      paymentMethodName: try row.decode(column: "payment_method_name", as: String.self),
      canceledAt: try row.decode(column: "canceled_at", as: Int64?.self).map(Date.init(epochMilliseconds:)),
      cancellationFeeCents: try row.decode(column: "cancellation_fee_cents", as: Int64.self),
      rating: try row.decode(column: "rating", as: Int?.self),
      tipCents: try row.decode(column: "tip_cents", as: Int64?.self))
  }
}
