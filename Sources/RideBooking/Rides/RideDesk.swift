internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import SQLKit
internal import IntentsKit

/// What the ride handlers read for one user, in one go: the rider, their rides (newest first) and
/// the driver roster.
struct RideDesk: Sendable {
  let rider: StoredRider?
  let rides: [StoredRide]
  let drivers: [StoredDriver]

  /// The user's rider record and rides with every driver — or, while the store is unchanged since
  /// an earlier request read them, that request's desk.
  static func load(userID: String, in database: any SQLDatabase) async throws -> RideDesk {
    try await database.cachedRead("rides.desk", userID: userID) {
      RideDesk(
        rider: try await StoredRider.load(userID, in: database),
        rides: try await RideRepository.rides(of: userID, in: database),
        drivers: try await DriverRepository.drivers(in: database))
    }
  }

  func schedule(of ride: StoredRide) -> RideSchedule? {
    drivers.first { $0.id == ride.driverID }.map { RideSchedule(ride: ride, driver: $0) }
  }

  /// The user's ride still running at `date`, if any.
  func runningRide(at date: Date) -> RideSchedule? {
    rides.lazy.compactMap(schedule).first { !$0.isFinished(at: date) }
  }

  /// The ride an intent means: the one with `identifier`, or else the running ride, or else the
  /// most recent one.
  func ride(_ identifier: String, at date: Date) -> RideSchedule? {
    if !identifier.isEmpty { return rides.first { $0.id == identifier }.flatMap(schedule) }
    return runningRide(at: date) ?? rides.first.flatMap(schedule)
  }
}
