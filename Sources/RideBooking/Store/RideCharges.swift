internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit

/// Money charged to a rider's payment method for a ride: its fare once it completed, a
/// cancellation fee, a tip. At most one of each kind per ride, whoever records it and however often.
struct StoredRideCharge: Sendable, Equatable {
  enum Kind: String, Sendable, CaseIterable {
    case fare
    case cancellationFee = "cancellation-fee"
    case tip
  }

  var rideID: String
  var kind: Kind
  var userID: String
  var amountCents: Int64
  /// The rider's payment method when it was charged.
  var paymentMethod: Intentmesh_V1_PaymentMethod
  var chargedAt: Date

  init(
    rideID: String, kind: Kind, userID: String, amountCents: Int64, paymentMethod: Intentmesh_V1_PaymentMethod,
    chargedAt: Date
  ) {
    self.rideID = rideID
    self.kind = kind
    self.userID = userID
    self.amountCents = amountCents
    self.paymentMethod = paymentMethod
    self.chargedAt = chargedAt
  }
}

/// Reads and writes charges.
enum RideChargeRepository {
  /// Charges `kind` of `ride` (`amountCents` > 0) to its rider's payment method as it is now; does
  /// nothing when the ride already has that charge or the amount is zero. True when charged now.
  @discardableResult
  static func charge(
    _ kind: StoredRideCharge.Kind, of ride: StoredRide, amountCents: Int64, at date: Date, in database: any SQLDatabase
  ) async throws -> Bool {
    guard amountCents > 0, let rider = try await StoredRider.load(ride.userID, in: database) else { return false }
    return
      !(try await database.raw(
        """
        INSERT INTO rides_charges (ride_id, kind, user_id, amount_cents, payment_method_type, payment_method_name,
                                   payment_method_hint, charged_at)
        VALUES (\(bind: ride.id), \(bind: kind.rawValue), \(bind: ride.userID), \(bind: amountCents),
                \(bind: rider.paymentMethod.type.rawValue), \(bind: rider.paymentMethod.name),
                \(bind: rider.paymentMethod.identificationHint), \(bind: date.epochMilliseconds))
        ON CONFLICT (ride_id, kind) DO NOTHING
        RETURNING ride_id
        """
      ).all()).isEmpty
  }

  /// Charges the fare of every ride (of `userID`, or everyone's) that completed by `now`, not
  /// cancelled, whose fare is not charged yet. Answers how many it charged.
  @discardableResult
  static func chargeCompletedFares(of userID: String? = nil, at now: Date, in database: any SQLDatabase)
    async throws -> Int
  {
    let user: SQLQueryString = userID.map { "AND r.user_id = \(bind: $0)" } ?? ""
    let due = try await database.raw(
      """
      SELECT \(RideRepository.prefixedColumns) FROM rides_rides r
      WHERE r.canceled_at IS NULL AND r.completes_at > 0 AND r.completes_at <= \(bind: now.epochMilliseconds)
        AND r.fare_cents > 0 \(user)
        AND NOT EXISTS (SELECT 1 FROM rides_charges c WHERE c.ride_id = r.ride_id AND c.kind = 'fare')
      ORDER BY r.completes_at LIMIT 500
      """
    ).all().map(RideRepository.decode)
    var charged = 0
    for ride in due where try await charge(.fare, of: ride, amountCents: ride.fareCents, at: now, in: database) {
      charged += 1
    }
    return charged
  }

  /// Whether a ride of `userID` completed by `now` waits for its fare to be charged.
  static func hasFaresDue(of userID: String, at now: Date, in database: any SQLDatabase) async throws -> Bool {
    try await database.raw(
      """
      SELECT 1 AS one FROM rides_rides r
      WHERE r.user_id = \(bind: userID) AND r.canceled_at IS NULL AND r.completes_at > 0
        AND r.completes_at <= \(bind: now.epochMilliseconds) AND r.fare_cents > 0
        AND NOT EXISTS (SELECT 1 FROM rides_charges c WHERE c.ride_id = r.ride_id AND c.kind = 'fare')
      LIMIT 1
      """
    ).first() != nil
  }

  /// The user's charges, newest first.
  static func charges(of userID: String, in database: any SQLDatabase) async throws -> [StoredRideCharge] {
    try await database.raw(
      """
      SELECT ride_id, kind, user_id, amount_cents, payment_method_type, payment_method_name, payment_method_hint,
             charged_at
      FROM rides_charges WHERE user_id = \(bind: userID) ORDER BY charged_at DESC, ride_id, kind
      """
    ).all().map { row in
      StoredRideCharge(
        rideID: try row.decode(column: "ride_id", as: String.self),
        kind: StoredRideCharge.Kind(rawValue: try row.decode(column: "kind", as: String.self)) ?? .fare,
        userID: try row.decode(column: "user_id", as: String.self),
        amountCents: try row.decode(column: "amount_cents", as: Int64.self),
        paymentMethod: try .with {
          $0.type = .init(rawValue: try row.decode(column: "payment_method_type", as: Int.self)) ?? .unspecified
          $0.name = try row.decode(column: "payment_method_name", as: String.self)
          $0.identificationHint = try row.decode(column: "payment_method_hint", as: String.self)
        },
        chargedAt: Date(epochMilliseconds: try row.decode(column: "charged_at", as: Int64.self)))
    }
  }
}
