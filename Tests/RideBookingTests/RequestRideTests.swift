import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import RideBooking
import RideBookingProtos
import SwiftProtobuf
import IntentsKitTesting
import Testing

@Suite("INRequestRideIntent and INListRideOptionsIntent")
struct RequestRideTests {
  @Test("drop-off: inside the service area → success, outside → unsupported, missing → needs value")
  func dropOff() async throws {
    try await RideFixture.with { fixture in
      let context = fixture.context()
      func resolve(_ dropOff: Placemark?) async throws -> ResolutionResult<Placemark> {
        try await fixture.request.resolveDropOff(
          intent: .with { if let dropOff { $0.dropOffLocation = dropOff } }, context: context)
      }
      let forest = try await resolve(place("the forest"))
      #expect(forest.successValue?.name == "Unicorn Forest")
      #expect(forest.successValue?.location.latitude == 37.7989)
      let coordinates = try await resolve(place(latitude: 37.7599, longitude: -122.4148, name: "Mission"))
      #expect(coordinates.successValue?.name == "Mission")
      let muirWoods = try await resolve(place("Muir Woods"))
      #expect(muirWoods.unsupportedReason?.name == "outsideServiceArea")
      #expect(muirWoods.unsupportedReason?.message == "Muir Woods is outside UnicornRides' service area.")
      let far = try await resolve(place(latitude: 37.3382, longitude: -121.8863))
      #expect(far.unsupportedReason?.name == "outsideServiceArea")
      let unknown = try await resolve(place("Atlantis"))
      #expect(unknown.unsupportedReason?.message == "UnicornRides can't find Atlantis.")
      #expect(try await resolve(nil).needsValuePrompt == "Where do you want to go?")
      let pickup = try await fixture.request.resolvePickup(intent: .init(), context: context)
      #expect(pickup.needsValuePrompt == "Where should the driver pick you up?")
    }
  }

  @Test("ride option name through the app vocabulary's synonyms, checked against the party size")
  func rideOptionName() async throws {
    try await RideFixture.with { fixture in
      let context = fixture.context()
      func resolve(_ name: String, party: Int32? = nil) async throws -> ResolutionResult<SpeakableString> {
        try await fixture.request.resolveRideOptionName(
          intent: .with {
            $0.rideOptionName = .with { $0.spokenPhrase = name }
            if let party { $0.partySize = party }
          }, context: context)
      }
      #expect(try await resolve("bicorn").successValue?.spokenPhrase == "Bicorn")
      #expect(try await resolve("two-horned unicorn").successValue?.vocabularyIdentifier == "bicorn")
      #expect(try await resolve("winged horse", party: 6).successValue?.spokenPhrase == "Pegasus")
      #expect(try await resolve("Pegasus", party: 6).successValue?.spokenPhrase == "Pegasus")
      let tooSmall = try await resolve("bicorn", party: 4)
      #expect(tooSmall.disambiguationOptions?.map(\.spokenPhrase) == ["Unicorn", "Pegasus"])
      #expect(try await resolve("unicorn", party: 7).unsupportedReason?.message == "No UnicornRides ride seats 7.")
      let dragon = try await resolve("dragon")
      #expect(dragon.unsupportedReason?.message == "UnicornRides has no dragon. It offers Unicorn, Bicorn, Pegasus.")
      let none = try await fixture.request.resolveRideOptionName(intent: .init(), context: context)
      #expect(none.isNotRequired)
    }
  }

  @Test("party size and pickup time")
  func partySizeAndTime() async throws {
    try await RideFixture.with { fixture in
      let context = fixture.context()
      func party(_ size: Int32) async throws -> ResolutionResult<Int32> {
        try await fixture.request.resolvePartySize(intent: .with { $0.partySize = size }, context: context)
      }
      #expect(try await party(6).successValue == 6)
      #expect(try await party(0).unsupportedReason != nil)
      #expect(try await party(9).unsupportedReason?.message == "UnicornRides seats at most 6 riders.")
      #expect(try await fixture.request.resolvePartySize(intent: .init(), context: context).isNotRequired)
      let past = try await fixture.request.resolveScheduledPickupTime(
        intent: .with { $0.scheduledPickupTime = RideTimes.range(RideFixture.start.addingTimeInterval(-3600)) },
        context: context)
      #expect(past.unsupportedReason?.message == "That pickup time has passed.")
      let later = try await fixture.request.resolveScheduledPickupTime(
        intent: .with { $0.scheduledPickupTime = RideTimes.range(RideFixture.start.addingTimeInterval(3600)) },
        context: context)
      #expect(later.successValue != nil)
    }
  }

  @Test("confirm refuses with SiriKit's codes: credentials, service area, a running ride, too far ahead")
  func confirmCodes() async throws {
    try await RideFixture.with { fixture in
      let ready = try await fixture.confirm(fixture.request, RideFixture.bicornToTheForest)
      #expect(ready.response.code == .ready)
      #expect(ready.response.rideStatus.rideOption.name == "Bicorn")
      #expect(ready.response.rideStatus.rideOption.priceRange.minimumPrice.units > 0)
      // A quote: where and when, not yet whose ride or which driver.
      let quote = ready.response.rideStatus
      #expect(quote.rideIdentifier.isEmpty && quote.phase == .unspecified)
      #expect(!quote.hasDriver && !quote.hasVehicle && !quote.hasCompletionStatus)
      #expect(quote.pickupLocation.hasLocation && quote.dropOffLocation.hasLocation)
      #expect(
        quote.estimatedPickupDate.seconds > 0 && quote.estimatedDropOffDate.seconds > quote.estimatedPickupDate.seconds)
      let sleepy = try await fixture.confirm(fixture.request, RideFixture.bicornToTheForest, user: "sleepy")
      #expect(sleepy.response.code == .failureRequiringAppLaunchMustVerifyCredentials)
      let stranger = try await fixture.confirm(fixture.request, RideFixture.bicornToTheForest, user: "stranger")
      #expect(stranger.response.code == .failureRequiringAppLaunch)
      var outside = RideFixture.bicornToTheForest
      outside.dropOffLocation = place("San Jose")
      #expect(
        try await fixture.confirm(fixture.request, outside).response.code == .failureRequiringAppLaunchNoServiceInArea)
      var tooFar = RideFixture.bicornToTheForest
      tooFar.scheduledPickupTime = RideTimes.range(RideFixture.start.addingTimeInterval(40 * 86_400))
      #expect(
        try await fixture.confirm(fixture.request, tooFar).response.code
          == .failureRequiringAppLaunchRideScheduledTooFar)
      _ = try await fixture.book()
      let second = try await fixture.confirm(fixture.request, RideFixture.bicornToTheForest)
      #expect(second.response.code == .failureRequiringAppLaunchPreviousRideNeedsCompletion)
      #expect(second.userActivity?.userInfo["error"] == "previousRideRunning")
    }
  }

  @Test("handle books the nearest driver: \"a Pegasus for 6 people from 300 Post Street to Bill Graham Auditorium\"")
  func bookPegasus() async throws {
    try await RideFixture.with { fixture in
      let status = try await fixture.book(
        .with {
          $0.pickupLocation = place("300 Post Street")
          $0.dropOffLocation = place("Bill Graham Auditorium")
          $0.rideOptionName = .with { $0.spokenPhrase = "Pegasus" }
          $0.partySize = 6
        })
      #expect(status.rideIdentifier == "ride-1")
      #expect(status.phase == .received)
      #expect(status.driver.person.displayName == "Twilight Hoof")
      #expect(status.driver.rating == "4.9")
      #expect(status.vehicle.registrationPlate == "UNCRN 1")
      #expect(status.vehicle.model == "Winged Pegasus")
      #expect(status.vehicle.location.latitude == 37.7936)
      #expect(status.rideOption.name == "Pegasus")
      #expect(status.pickupLocation.name == "300 Post Street")
      #expect(status.dropOffLocation.thoroughfare == "99 Grove St")
      #expect(status.estimatedPickupDate.date > RideFixture.start)
      #expect(status.estimatedDropOffDate.date > status.estimatedPickupDate.date)
    }
  }

  @Test("list ride options: three offers with fares and party sizes, the payment method, an expiry")
  func listOptions() async throws {
    try await RideFixture.with { fixture in
      let intent = ListRideOptionsIntent.with {
        $0.pickupLocation = place("300 Post Street"); $0.dropOffLocation = place("Bill Graham Auditorium")
      }
      let answer = try await fixture.handle(fixture.list, intent)
      #expect(answer.response.code == .success)
      let options = answer.response.rideOptions
      #expect(options.map(\.name) == ["Unicorn", "Bicorn", "Pegasus"])
      #expect(
        options[2].availablePartySizeOptions.map(\.sizeDescription) == ["1–2 riders", "3–4 riders", "5–6 riders"])
      #expect(options[1].availablePartySizeOptions.map(\.maximumPartySize) == [2])
      #expect(
        options.allSatisfy {
          !$0.fareLineItems.isEmpty && $0.priceRange.maximumPrice.units >= $0.priceRange.minimumPrice.units
        })
      #expect(options[0].disclaimerMessage == RideOptionsQuote.disclaimer)
      #expect(answer.response.paymentMethods.map(\.name) == ["Apple Pay"])
      #expect(answer.response.expirationDate.date == RideFixture.start.addingTimeInterval(300))
      var outside = intent
      outside.dropOffLocation = place("Muir Woods")
      #expect(
        try await fixture.handle(fixture.list, outside).response.code == .failureRequiringAppLaunchNoServiceInArea)
      _ = try await fixture.book()
      #expect(
        try await fixture.handle(fixture.list, intent).response.code
          == .failureRequiringAppLaunchPreviousRideNeedsCompletion)
    }
  }
}
