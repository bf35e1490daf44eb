internal import IntentsKit

/// UnicornRides' tables: riders, known places, drivers and rides. A ride row holds what was
/// booked and what people did to it; its phase and the vehicle's position follow from the clock.
enum RideBookingSchema {
  static let migrations: [SchemaMigration] = [
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
      ]),
    // Real drivers and money: a driver is held by one ride from its booking until it completes or
    // is cancelled (`held_by`, `held_until`, claimed by a compare-and-set update, so two bookings
    // never get the same driver); each ride's fare (once completed), cancellation fee and tip is a
    // charge to the rider's payment method, at most one of each kind per ride.
    SchemaMigration(
      id: "rides-2-holds-and-charges",
      statements: [
        "ALTER TABLE rides_drivers ADD COLUMN held_by TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE rides_drivers ADD COLUMN held_until BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE rides_rides ADD COLUMN completes_at BIGINT NOT NULL DEFAULT 0",
        "CREATE INDEX rides_rides_by_completion ON rides_rides (completes_at)",
        """
        CREATE TABLE rides_charges (
          ride_id TEXT NOT NULL REFERENCES rides_rides (ride_id),
          kind TEXT NOT NULL CHECK (kind IN ('fare', 'cancellation-fee', 'tip')),
          user_id TEXT NOT NULL,
          amount_cents BIGINT NOT NULL CHECK (amount_cents > 0),
          payment_method_type INTEGER NOT NULL,
          payment_method_name TEXT NOT NULL,
          payment_method_hint TEXT NOT NULL,
          charged_at BIGINT NOT NULL,
          PRIMARY KEY (ride_id, kind)
        )
        """,
        "CREATE INDEX rides_charges_by_user ON rides_charges (user_id, charged_at)",
      ]),
  ]
}
