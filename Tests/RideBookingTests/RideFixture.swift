import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
import Logging
@testable import RideBooking
import RideBookingProtos
import SQLKit
import SwiftProtobuf

/// UnicornRides' store, migrated and seeded in a fresh SQLite file, with handlers over it and a
/// manual clock: a whole ride runs in no time.
struct RideFixture {
  /// 2026-05-22 09:00 in San Francisco (16:00 UTC): no surge.
  static let start = Date(timeIntervalSince1970: 1_779_465_600)
  static let sanFrancisco = TimeZone(identifier: "America/Los_Angeles")!
  static let manifest = DomainFixture.manifest(of: "RideBooking")

  let domain: DomainFixture
  let identifiers = SequentialIdentifierGenerator(prefix: "ride")
  let vocabulary: AppIntentVocabularyPlist
  var store: any IntentStore { domain.store }
  var clock: ManualClock { domain.clock }

  static func with<T: Sendable>(_ body: (RideFixture) async throws -> T) async throws -> T {
    let vocabulary = try AppIntentVocabularyPlist.load(inManifest: manifest)
    return try await DomainFixture.with(
      UnicornRides.definition(), user: RideBookingSeed.demoUser, timeZone: sanFrancisco, start: start,
      intentIdentifier: "test"
    ) { try await body(RideFixture(domain: $0, vocabulary: vocabulary)) }
  }

  func context(user: String = RideBookingSeed.demoUser) -> IntentContext {
    domain.context(user: user)
  }

  var list: ListRideOptionsHandler { ListRideOptionsHandler(store: store, area: .sanFrancisco) }
  var request: RequestRideHandler {
    RequestRideHandler(
      store: store, area: .sanFrancisco, offers: RideOfferMatcher(vocabulary: vocabulary), identifiers: identifiers)
  }
  var status: GetRideStatusHandler { GetRideStatusHandler(store: store, clock: clock) }
  var cancel: CancelRideHandler { CancelRideHandler(store: store) }
  var feedback: SendRideFeedbackHandler { SendRideFeedbackHandler(store: store) }

  func handle<H: IntentHandler>(_ handler: H, _ intent: H.Intent, user: String = RideBookingSeed.demoUser)
    async throws -> IntentAnswer<H.Response>
  {
    try await domain.handle(handler, intent, user: user)
  }

  func confirm<H: IntentHandler>(_ handler: H, _ intent: H.Intent, user: String = RideBookingSeed.demoUser)
    async throws -> IntentAnswer<H.Response>
  {
    try await domain.confirm(handler, intent, user: user)
  }

  /// Books "a bicorn to the forest" from 300 Post Street and returns its status.
  func book(_ intent: RequestRideIntent = RideFixture.bicornToTheForest) async throws -> RideStatus {
    let answer = try await handle(request, intent)
    precondition(answer.response.code == .success, "booking failed: \(answer.response.code)")
    return answer.response.rideStatus
  }

  static let bicornToTheForest = RequestRideIntent.with {
    $0.pickupLocation = place("300 Post Street")
    $0.dropOffLocation = place("the forest")
    $0.rideOptionName = .with { $0.spokenPhrase = "bicorn" }
  }
}

func place(_ name: String) -> Placemark { .with { $0.name = name } }

func place(latitude: Double, longitude: Double, name: String = "") -> Placemark {
  .with {
    $0.name = name
    $0.location = .with {
      $0.latitude = latitude; $0.longitude = longitude
    }
  }
}
