internal import Foundation
internal import Logging
internal import IntentMeshProtos
internal import SwiftProtobuf
package import IntentsKit

/// UnicornRides, the ride-booking domain of sessions 217 and 214: five intents, live ride status on
/// a clock, the Unicorn Ride view, its schema and demo data.
package enum UnicornRides {
  /// The service's default port.
  package static let defaultPort = 50063
  /// The environment variable that sets the service area (see `ServiceArea.parse`).
  static let serviceAreaVariable = "UNICORNRIDES_SERVICE_AREA"
  /// The environment variable that makes rides run faster than the wall clock (a number; 1 is real time).
  static let clockSpeedVariable = "UNICORNRIDES_CLOCK_SPEED"

  /// The clock the environment configures: the wall clock, or an accelerated one (from the epoch
  /// `INTENTMESH_CLOCK_EPOCH` names, else from now).
  package static func configuredClock(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> any DomainClock
  {
    guard let text = environment[clockSpeedVariable], !text.isEmpty else { return SystemClock() }
    guard let speed = Double(text), speed > 0 else {
      throw ServiceArea.ParseError(description: "\(clockSpeedVariable) must be a positive number, not \"\(text)\"")
    }
    guard speed != 1 else { return SystemClock() }
    return AcceleratedClock(speed: speed, epoch: try AcceleratedClock.epoch(from: environment) ?? Date())
  }

  /// The service area the environment configures, San Francisco by default.
  package static func configuredArea(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
    -> ServiceArea
  {
    guard let text = environment[serviceAreaVariable], !text.isEmpty else { return .sanFrancisco }
    return try ServiceArea.parse(text)
  }

  /// The domain as the runtime runs it. Rides move on `clock`; the service's `now` must be the
  /// same clock's. Every `chargeInterval` the fares of rides completed since are charged.
  package static func definition(
    area: ServiceArea = .sanFrancisco, clock: any DomainClock = SystemClock(),
    identifiers: any IdentifierGenerator = UUIDIdentifierGenerator(), chargeInterval: Duration = .seconds(5)
  ) -> DomainDefinition {
    DomainDefinition(
      serviceName: "ridebooking-service",
      vocabularyTypes: [],
      migrations: RideBookingSchema.migrations,
      seed: RideBookingSeed.seed,
      maintenance: DomainMaintenance(interval: chargeInterval) { store, now, logger in
        let charged = try await store.write { try await RideChargeRepository.chargeCompletedFares(at: now, in: $0) }
        if charged > 0 { logger.info("charged completed fares", metadata: ["count": "\(charged)"]) }
      },
      appServiceNames: ["intentmesh.ridebooking.v1.UnicornRidesApp"],
      appServices: { resources in [UnicornRidesAppService(store: resources.store, clock: clock)] }
    ) { resources in
      let store = resources.store
      let offers = RideOfferMatcher(vocabulary: resources.appVocabulary)
      return IntentRegistry([
        .handler(ListRideOptionsHandler.self) { ListRideOptionsHandler(store: store, area: area) },
        .handler(RequestRideHandler.self, view: AnyIntentViewController(RequestRideViewController())) {
          RequestRideHandler(store: store, area: area, offers: offers, identifiers: identifiers)
        },
        .liveHandler(GetRideStatusHandler.self, view: AnyIntentViewController(RideStatusViewController())) {
          GetRideStatusHandler(store: store, clock: clock)
        },
        .handler(CancelRideHandler.self) { CancelRideHandler(store: store) },
        .handler(SendRideFeedbackHandler.self) { SendRideFeedbackHandler(store: store) },
      ])
    }
  }
}
