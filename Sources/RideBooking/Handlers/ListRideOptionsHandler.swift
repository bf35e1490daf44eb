internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INListRideOptionsIntent: the rides on offer between a pickup and a drop-off inside the service
/// area — fare ranges, party sizes, surge, the nearest driver's arrival — with the rider's payment
/// methods and when the quote expires.
struct ListRideOptionsHandler: IntentHandler {
  typealias Intent = ListRideOptionsIntent
  typealias Response = ListRideOptionsIntentResponse

  static let intentClass = "INListRideOptionsIntent"
  static let handleHasEffects = false
  /// How long a quote holds.
  static let quoteLifetime: TimeInterval = 300
  static var parameters: [IntentParameter<Self>] {
    [
      .value(
        "pickupLocation", \.pickupLocation, prompt: "Where should the driver pick you up?", label: "Pickup",
        resolve: Self.resolvePickup),
      .value(
        "dropOffLocation", \.dropOffLocation, prompt: "Where do you want to go?", label: "Drop-off",
        resolve: Self.resolveDropOff),
    ]
  }

  let store: any IntentStore
  let area: ServiceArea
  /// The places pickup and drop-off are resolved among, read once for this handler's request.
  let placeBook: PlaceBook

  init(store: any IntentStore, area: ServiceArea) {
    self.store = store
    self.area = area
    placeBook = PlaceBook(store: store, area: area)
  }

  func places() async throws -> PlaceResolver {
    try await placeBook.resolver()
  }

  func resolvePickup(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Placemark> {
    try await places().resolve(intent.pickupLocation, prompt: "Where should the driver pick you up?")
  }

  func resolveDropOff(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Placemark> {
    try await places().resolve(intent.dropOffLocation, prompt: "Where do you want to go?")
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let desk = try await RideDesk.load(userID: context.userID, in: database)
    guard let rider = desk.rider else { return IntentAnswer(code: .failureRequiringAppLaunch) }
    guard rider.credentialsVerified else { return IntentAnswer(code: .failureRequiringAppLaunchMustVerifyCredentials) }
    if desk.runningRide(at: context.now) != nil {
      return IntentAnswer(code: .failureRequiringAppLaunchPreviousRideNeedsCompletion)
    }
    let resolver = PlaceResolver(area: area, places: try await PlaceRepository.places(in: database))
    guard let pickup = resolver.located(intent.pickupLocation).flatMap(GeoPoint.init),
      let dropOff = resolver.located(intent.dropOffLocation).flatMap(GeoPoint.init)
    else {
      return IntentAnswer(code: .failure, userActivity: UserActivityDraft(userInfo: ["error": "unresolvedPlace"]))
    }
    guard area.contains(pickup), area.contains(dropOff) else {
      return IntentAnswer(code: .failureRequiringAppLaunchNoServiceInArea)
    }
    var response = Response(code: .success)
    response.rideOptions = RideOffer.catalog.map { offer in
      RideOptionsQuote.option(
        offer, from: pickup, to: dropOff, partySize: 1, drivers: desk.drivers, now: context.now,
        timeZone: context.timeZone)
    }
    response.paymentMethods = [rider.paymentMethod]
    response.expirationDate = .init(date: context.now.addingTimeInterval(Self.quoteLifetime))
    return IntentAnswer(response)
  }
}
