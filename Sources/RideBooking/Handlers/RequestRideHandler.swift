internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import RideBookingProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INRequestRideIntent ("Get me a bicorn ride on UnicornRides to the forest", "get me a Pegasus
/// for 6 people from 300 Post Street to Bill Graham Auditorium"): pickup and drop-off inside the
/// service area, the ride option by name or app-vocabulary synonym, a party size that fits it, and
/// an optional pickup time. Handle books the ride with the nearest driver.
struct RequestRideHandler: IntentHandler {
  typealias Intent = RequestRideIntent
  typealias Response = RequestRideIntentResponse

  static let intentClass = "INRequestRideIntent"
  static let requiresUserConfirmation = true
  static let confirmationPrompt = "Do you want to request it?"
  /// The latest pickup UnicornRides books ahead.
  static let schedulingHorizon: TimeInterval = 30 * 86_400
  static var parameters: [IntentParameter<Self>] {
    [
      .value(
        "pickupLocation", \.pickupLocation, prompt: "Where should the driver pick you up?", label: "Pickup",
        resolve: Self.resolvePickup),
      .value(
        "dropOffLocation", \.dropOffLocation, prompt: "Where do you want to go?", label: "Drop-off",
        resolve: Self.resolveDropOff),
      .value("rideOptionName", \.rideOptionName, label: "Ride", resolve: Self.resolveRideOptionName),
      .value("partySize", \.partySize, label: "Riders", resolve: Self.resolvePartySize),
      .value("paymentMethod", \.paymentMethod, label: "Payment"),
      .value(
        "scheduledPickupTime", \.scheduledPickupTime, label: "Pickup time", resolve: Self.resolveScheduledPickupTime),
    ]
  }

  let store: any IntentStore
  let area: ServiceArea
  let offers: RideOfferMatcher
  let identifiers: any IdentifierGenerator
  /// The places pickup and drop-off are resolved among, read once for this handler's request.
  let placeBook: PlaceBook

  init(
    store: any IntentStore, area: ServiceArea, offers: RideOfferMatcher, identifiers: any IdentifierGenerator
  ) {
    placeBook = PlaceBook(store: store, area: area)
    self.store = store
    self.area = area
    self.offers = offers
    self.identifiers = identifiers
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

  /// A named ride that seats the party → success; one that does not → a choice among those that
  /// do; an unknown name or a party no ride seats → unsupported; no name → not required (the
  /// cheapest ride that fits is booked).
  func resolveRideOptionName(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    let spoken = intent.rideOptionName.spokenPhrase
    guard intent.hasRideOptionName, !spoken.isEmpty else { return .notRequired }
    guard let offer = offers.offer(named: spoken) else {
      let names = offers.offers.map(\.name).joined(separator: ", ")
      return .unsupported(ResolutionReason(message: "UnicornRides has no \(spoken). It offers \(names)."))
    }
    let party = intent.hasPartySize ? Int(intent.partySize) : 1
    guard party > offer.maximumPartySize else { return .success(Self.name(of: offer)) }
    let fitting = offers.offers.filter { $0.maximumPartySize >= party }
    guard !fitting.isEmpty else {
      return .unsupported(ResolutionReason(message: "No UnicornRides ride seats \(party)."))
    }
    return .disambiguation(
      fitting.map(Self.name), prompt: "A \(offer.name) seats \(offer.maximumPartySize). Which ride for \(party)?")
  }

  func resolvePartySize(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Int32> {
    guard intent.hasPartySize else { return .notRequired }
    let largest = offers.offers.map(\.maximumPartySize).max() ?? 1
    guard intent.partySize >= 1 else {
      return .unsupported(ResolutionReason(message: "A ride needs at least one rider."))
    }
    guard intent.partySize <= largest else {
      return .unsupported(ResolutionReason(message: "UnicornRides seats at most \(largest) riders."))
    }
    return .success(intent.partySize)
  }

  func resolveScheduledPickupTime(intent: Intent, context: IntentContext) async throws -> ResolutionResult<
    DateComponentsRange
  > {
    guard intent.hasScheduledPickupTime else { return .notRequired }
    guard let start = RideTimes.start(of: intent.scheduledPickupTime, context: context) else {
      return .unsupported(ResolutionReason(message: "That pickup time does not exist."))
    }
    guard start.timeIntervalSince(context.now) > -60 else {
      return .unsupported(ResolutionReason(message: "That pickup time has passed."))
    }
    return .success(intent.scheduledPickupTime)
  }

  static func name(of offer: RideOffer) -> SpeakableString {
    .with {
      $0.spokenPhrase = offer.name
      $0.vocabularyIdentifier = offer.id
    }
  }

  /// Everything handle needs, or the code that refuses it.
  struct Plan {
    var rider: StoredRider
    var offer: RideOffer
    var partySize: Int
    var pickup: Placemark
    var dropOff: Placemark
    var scheduledPickup: Date?
    var driver: StoredDriver
    var fare: FareCalculator.Fare
  }

  func makePlan(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    Plan, IntentRefusal<Response>
  > {
    let desk = try await RideDesk.load(userID: context.userID, in: database)
    guard let rider = desk.rider else { return .failure(IntentRefusal(.failureRequiringAppLaunch, "noRider")) }
    guard rider.credentialsVerified else {
      return .failure(IntentRefusal(.failureRequiringAppLaunchMustVerifyCredentials, "credentialsUnverified"))
    }
    if desk.runningRide(at: context.now) != nil {
      return .failure(IntentRefusal(.failureRequiringAppLaunchPreviousRideNeedsCompletion, "previousRideRunning"))
    }
    let resolver = PlaceResolver(area: area, places: try await PlaceRepository.places(in: database))
    guard let pickup = resolver.located(intent.pickupLocation), let dropOff = resolver.located(intent.dropOffLocation),
      let pickupPoint = GeoPoint(pickup), let dropOffPoint = GeoPoint(dropOff)
    else { return .failure(IntentRefusal(.failure, "unresolvedPlace")) }
    guard area.contains(pickupPoint), area.contains(dropOffPoint) else {
      return .failure(IntentRefusal(.failureRequiringAppLaunchNoServiceInArea, "outsideServiceArea"))
    }
    var scheduled: Date?
    if intent.hasScheduledPickupTime {
      guard let start = RideTimes.start(of: intent.scheduledPickupTime, context: context),
        start.timeIntervalSince(context.now) > -60
      else { return .failure(IntentRefusal(.failure, "invalidPickupTime")) }
      guard start.timeIntervalSince(context.now) <= Self.schedulingHorizon else {
        return .failure(IntentRefusal(.failureRequiringAppLaunchRideScheduledTooFar, "scheduledTooFar"))
      }
      scheduled = start > context.now ? start : nil
    }
    let party = intent.hasPartySize ? Int(intent.partySize) : 1
    let named = intent.rideOptionName.spokenPhrase
    let offer: RideOffer?
    if named.isEmpty {
      offer = offers.offers.filter { $0.maximumPartySize >= party }.min { $0.baseCents < $1.baseCents }
    } else {
      offer = offers.offer(named: named).flatMap { $0.maximumPartySize >= party ? $0 : nil }
    }
    guard let offer else { return .failure(IntentRefusal(.failure, "noRideFits")) }
    // Only a driver no ride holds is offered: none free is SiriKit's "service temporarily unavailable".
    guard let driver = DriverRepository.nearest(to: pickupPoint, among: desk.drivers, freeAt: context.now) else {
      return .failure(IntentRefusal(.failureRequiringAppLaunchServiceTemporarilyUnavailable, "noDriver"))
    }
    let fare = FareCalculator.fare(
      offer, kilometres: pickupPoint.distanceKilometres(to: dropOffPoint), partySize: party,
      at: scheduled ?? context.now, timeZone: context.timeZone)
    return .success(
      Plan(
        rider: rider, offer: offer, partySize: party, pickup: pickup, dropOff: dropOff, scheduledPickup: scheduled,
        driver: driver, fare: fare))
  }

  func ride(_ plan: Plan, id: String, context: IntentContext) -> StoredRide {
    StoredRide(
      id: id, userID: context.userID, offerID: plan.offer.id, partySize: plan.partySize, pickup: plan.pickup,
      dropOff: plan.dropOff, bookedAt: context.now, scheduledPickup: plan.scheduledPickup, driverID: plan.driver.id,
      fareCents: plan.fare.totalCents, maximumFareCents: plan.fare.maximumCents, surge: plan.fare.surge,
      paymentMethodName: plan.rider.paymentMethod.name)
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    try await store.read { database in
      switch try await makePlan(intent: intent, context: context, database: database) {
      case .failure(let refusal): return refusal.answer
      case .success(let plan):
        // The ride as it would be booked now, without its identifier, phase, driver or vehicle yet.
        var response = Response(code: .ready)
        response.rideStatus = RideSchedule(ride: ride(plan, id: "", context: context), driver: plan.driver)
          .quote(offer: plan.offer)
        return IntentAnswer(response)
      }
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    switch try await makePlan(intent: intent, context: context, database: database) {
    case .failure(let refusal): return refusal.answer
    case .success(let plan):
      let booked = ride(plan, id: identifiers.next(), context: context)
      let schedule = RideSchedule(ride: booked, driver: plan.driver)
      // The driver is held until the ride completes; a booking that raced this one for them won.
      guard
        try await DriverRepository.hold(
          plan.driver.id, for: booked.id, at: context.now, until: schedule.completedAt, in: database)
      else {
        return IntentRefusal<Response>(.failureRequiringAppLaunchServiceTemporarilyUnavailable, "driverTaken").answer
      }
      try await RideRepository.insert(booked, completesAt: schedule.completedAt, in: database)
      context.logger.info("booked ride", metadata: ["ride": "\(booked.id)", "option": "\(plan.offer.name)"])
      var response = Response(code: .success)
      response.rideStatus = schedule.status(at: context.now, offer: plan.offer)
      return IntentAnswer(response)
    }
  }
}
