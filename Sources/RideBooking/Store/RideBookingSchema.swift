internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
package import IntentsKit

/// UnicornRides' tables: riders, known places, drivers and rides. A ride row holds what was
/// booked and what people did to it; its phase and the vehicle's position follow from the clock.
package enum RideBookingSchema {
  package static let migrations: [SchemaMigration] = [
    SchemaMigration(
      id: "rides-1-initial",
      statements: [
        """
        CREATE TABLE rides_riders (
          user_id TEXT PRIMARY KEY,
          display_name TEXT NOT NULL,
          credentials_verified INTEGER NOT NULL,
          payment_method_type INTEGER NOT NULL,
          payment_method_name TEXT NOT NULL,
          payment_method_hint TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE rides_places (
          name TEXT PRIMARY KEY,
          aliases TEXT NOT NULL,
          latitude DOUBLE PRECISION NOT NULL,
          longitude DOUBLE PRECISION NOT NULL,
          thoroughfare TEXT NOT NULL,
          locality TEXT NOT NULL
        )
        """,
        """
        CREATE TABLE rides_drivers (
          driver_id TEXT PRIMARY KEY,
          given_name TEXT NOT NULL,
          family_name TEXT NOT NULL,
          rating TEXT NOT NULL,
          phone_number TEXT NOT NULL,
          registration_plate TEXT NOT NULL,
          latitude DOUBLE PRECISION NOT NULL,
          longitude DOUBLE PRECISION NOT NULL
        )
        """,
        """
        CREATE TABLE rides_rides (
          ride_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          offer_id TEXT NOT NULL,
          party_size INTEGER NOT NULL,
          pickup TEXT NOT NULL,
          drop_off TEXT NOT NULL,
          booked_at BIGINT NOT NULL,
          scheduled_pickup_at BIGINT,
          driver_id TEXT NOT NULL REFERENCES rides_drivers (driver_id),
          fare_cents BIGINT NOT NULL,
          maximum_fare_cents BIGINT NOT NULL,
          surge TEXT NOT NULL,
          payment_method_name TEXT NOT NULL,
          canceled_at BIGINT,
          cancellation_fee_cents BIGINT NOT NULL,
          rating INTEGER CHECK (rating BETWEEN 0 AND 10),
          tip_cents BIGINT CHECK (tip_cents >= 0)
        )
        """,
        "CREATE INDEX rides_rides_by_user ON rides_rides (user_id, booked_at)",
      ])
  ]
}
