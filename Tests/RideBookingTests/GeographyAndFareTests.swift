import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import RideBooking
import RideBookingProtos
import SwiftProtobuf
import Testing

@Suite("Service area, distances and fares")
struct GeographyAndFareTests {
  let postStreet = GeoPoint(latitude: 37.7887, longitude: -122.4074)
  let billGraham = GeoPoint(latitude: 37.7784, longitude: -122.4177)

  @Test("San Francisco's polygon holds the sessions' places and not Muir Woods or San Jose")
  func sanFrancisco() {
    let area = ServiceArea.sanFrancisco
    #expect(area.contains(postStreet) && area.contains(billGraham))
    #expect(!area.contains(GeoPoint(latitude: 37.8970, longitude: -122.5811)))
    #expect(!area.contains(GeoPoint(latitude: 37.3382, longitude: -121.8863)))
  }

  @Test("the configured area: polygon or circle; malformed text is refused with the reason")
  func parsing() throws {
    let circle = try ServiceArea.parse("circle:37.7749,-122.4194,2")
    #expect(circle.contains(postStreet))
    #expect(!circle.contains(GeoPoint(latitude: 37.7989, longitude: -122.4662)))
    let triangle = try ServiceArea.parse("polygon:37.80,-122.42;37.80,-122.40;37.77,-122.41")
    #expect(triangle.contains(postStreet))
    #expect(!triangle.contains(GeoPoint(latitude: 37.7600, longitude: -122.4500)))
    for bad in ["square:1,2", "circle:1,2", "circle:1,2,-3", "polygon:1,2;3,4", "polygon:1,x;2,3;4,5"] {
      #expect(throws: ServiceArea.ParseError.self, "\(bad)") { try ServiceArea.parse(bad) }
    }
    #expect(try UnicornRides.configuredArea([:]) == .sanFrancisco)
    #expect(try UnicornRides.configuredArea(["UNICORNRIDES_SERVICE_AREA": "circle:1,2,3"]) != .sanFrancisco)
  }

  @Test("haversine distance and interpolation")
  func distance() {
    let kilometres = postStreet.distanceKilometres(to: billGraham)
    #expect(kilometres > 1.4 && kilometres < 1.5)
    #expect(postStreet.interpolated(to: billGraham, fraction: 0) == postStreet)
    #expect(postStreet.interpolated(to: billGraham, fraction: 1) == billGraham)
    #expect(postStreet.interpolated(to: billGraham, fraction: 2) == billGraham)
  }

  @Test("fares in exact cents: base, distance, riders beyond two, evening surge, booking fee")
  func fares() {
    let pegasus = RideOffer.catalog[2]
    let morning = RideFixture.start
    let fare = FareCalculator.fare(
      pegasus, kilometres: 2, partySize: 6, at: morning, timeZone: RideFixture.sanFrancisco)
    #expect(fare.lineItems.map(\.charge.title) == ["Base fare", "Distance (2.0 km)", "4 extra riders", "Booking fee"])
    #expect(fare.totalCents == 900 + 800 + 600 + 150)
    #expect(fare.maximumCents == (2_450 * 6 + 4) / 5)
    #expect(fare.surge == "")
    let evening = morning.addingTimeInterval(9 * 3600)  // 18:00 in San Francisco
    let surged = FareCalculator.fare(
      pegasus, kilometres: 2, partySize: 1, at: evening, timeZone: RideFixture.sanFrancisco)
    #expect(surged.surge == "1.5x Surge")
    #expect(surged.lineItems.map(\.charge.title) == ["Base fare", "Distance (2.0 km)", "Surge 1.5x", "Booking fee"])
    #expect(surged.totalCents == 900 + 800 + 850 + 150)
  }

  @Test("a fare's lines on the wire: the titles and prices of its charges, in order")
  func fareLines() {
    let pegasus = RideOffer.catalog[2]
    let evening = RideFixture.start.addingTimeInterval(9 * 3600)  // 18:00 in San Francisco
    let fare = FareCalculator.fare(
      pegasus, kilometres: 2.25, partySize: 4, at: evening, timeZone: RideFixture.sanFrancisco)
    let lines = fare.fareLineItems
    #expect(lines.map(\.title) == ["Base fare", "Distance (2.2 km)", "2 extra riders", "Surge 1.5x", "Booking fee"])
    #expect(lines.map(\.price.cents) == fare.lineItems.map { $0.cents as Int64? })
    #expect(lines.allSatisfy { $0.price.currencyCode == "USD" })
  }

  /// A ride booked at `start` with the two places, scheduled or not, cancelled or not.
  func ride(scheduled: Date? = nil, canceledAt: Date? = nil) -> StoredRide {
    StoredRide(
      id: "ride-1", userID: "diana", offerID: "pegasus", partySize: 2,
      pickup: .with {
        $0.name = "300 Post Street"
        $0.location = postStreet.location
      },
      dropOff: .with {
        $0.name = "Bill Graham"
        $0.location = billGraham.location
      },
      bookedAt: RideFixture.start, scheduledPickup: scheduled, driverID: "d1", fareCents: 3_166,
      maximumFareCents: 3_800, surge: "1.5x Surge", canceledAt: canceledAt)
  }

  @Test("a confirmation's quote is the ride's status without its identifier, phase, driver, vehicle or completion")
  func quoteIsStatusWithoutTheRide() throws {
    let driver = StoredDriver(
      id: "d1", givenName: "Ada", familyName: "Unicorn", rating: "4.9", phoneNumber: "+14155550100",
      registrationPlate: "UNI 1", stable: billGraham)
    let pegasus = RideOffer.catalog[2]
    let start = RideFixture.start
    let rides = [
      ride(), ride(scheduled: start.addingTimeInterval(3_600)), ride(canceledAt: start.addingTimeInterval(30)),
    ]
    for stored in rides {
      let schedule = RideSchedule(ride: stored, driver: driver)
      for date in [start, schedule.pickupAt, schedule.completedAt.addingTimeInterval(60)] {
        var status = schedule.status(at: date, offer: pegasus)
        #expect(status.rideIdentifier == "ride-1" && status.hasDriver && status.hasVehicle)
        status.rideIdentifier = ""
        status.phase = .unspecified
        status.clearDriver()
        status.clearVehicle()
        status.clearCompletionStatus()
        let quote = schedule.quote(offer: pegasus)
        #expect(quote == status)
        #expect(try quote.serializedBytes() as [UInt8] == status.serializedBytes())
      }
      #expect(schedule.quote(offer: pegasus).hasScheduledPickupTime == (stored.scheduledPickup != nil))
    }
  }

  @Test("the nearest free driver: equal distances go to the lower id, held drivers are skipped, none free is nil")
  func nearestDriver() {
    func driver(_ id: String, _ stable: GeoPoint, heldUntil: Date = .distantPast) -> StoredDriver {
      StoredDriver(
        id: id, givenName: id, familyName: "", rating: "5", phoneNumber: "", registrationPlate: "", stable: stable,
        heldUntil: heldUntil)
    }
    let now = RideFixture.start
    let later = now.addingTimeInterval(600)
    let roster = [
      driver("d3", billGraham), driver("d2", postStreet), driver("d1", postStreet, heldUntil: later),
      driver("d0", billGraham),
    ]
    #expect(DriverRepository.nearest(to: postStreet, among: roster)?.id == "d1")
    #expect(DriverRepository.nearest(to: postStreet, among: roster, freeAt: now)?.id == "d2")
    #expect(DriverRepository.nearest(to: postStreet, among: roster, freeAt: later)?.id == "d1")
    #expect(DriverRepository.nearest(to: billGraham, among: roster, freeAt: now)?.id == "d0")
    #expect(DriverRepository.nearest(to: postStreet, among: [roster[2]], freeAt: now) == nil)
    #expect(DriverRepository.nearest(to: postStreet, among: []) == nil)
  }

  @Test("a placemark is located by its name or thoroughfare when one known place answers to it, not two")
  func locatedPlaces() {
    let places = [
      StoredKnownPlace(name: "300 Post Street", point: postStreet, thoroughfare: "Post Street", locality: "SF"),
      StoredKnownPlace(name: "Bill Graham", aliases: ["the auditorium"], point: billGraham, locality: "SF"),
      StoredKnownPlace(name: "Civic Center", aliases: ["The Auditorium"], point: billGraham, locality: "SF"),
    ]
    let resolver = PlaceResolver(area: .sanFrancisco, places: places)
    #expect(resolver.located(.with { $0.name = "300 post street" })?.name == "300 Post Street")
    #expect(resolver.located(.with { $0.thoroughfare = "BILL GRAHAM" })?.name == "Bill Graham")
    #expect(resolver.located(.with { $0.name = "the auditorium" }) == nil)
    #expect(
      resolver.candidates(for: .with { $0.name = "the auditorium" }).map(\.name) == ["Bill Graham", "Civic Center"])
    #expect(resolver.located(.with { $0.name = "nowhere" }) == nil)
    #expect(resolver.located(.with { $0.name = "" }) == nil)
    let given = Intentmesh_V1_Placemark.with {
      $0.name = "the auditorium"
      $0.location = postStreet.location
    }
    #expect(resolver.located(given) == given)
  }

  @Test("a fare's distance is written as %.1f writes it; its hour is the calendar's, across DST and odd offsets")
  func fareFormattingAndHours() throws {
    var values: [Double] = [
      0, -0.0, 0.05, 0.15, 0.25, 0.35, 0.45, 1.25, 2, 2.449_999, 2.45, 9.95, 12.34, 99.99, 123.456, -0.04, -2.25,
      0.049_999_999_999_999_996, .leastNonzeroMagnitude, 99_999_999_999_999.95, 1e14, 999_999_999_999_999.9, 1e15,
      1e300, .infinity, -.infinity, .nan,
    ]
    // Below 1,000 km: every hundredth (n.x5 is a tie only at n.25 and n.75, the others fall either
    // side of it; n.x0 × 10 may round up to a whole number, 0.3 × 10 = 3.0), the doubles either side
    // of each, negated too; and 20,000 distances spread over 0–500 km by the golden ratio.
    for hundredths in 0..<100_000 {
      let value = Double(hundredths) / 100
      values += [value, value.nextUp, value.nextDown, -value]
    }
    for index in 1...20_000 {
      values.append((Double(index) * 0.618_033_988_749_894_9).truncatingRemainder(dividingBy: 1) * 500)
    }
    let wrong = values.filter { FareCalculator.oneDecimal($0) != String(format: "%.1f", $0) }
    #expect(wrong.isEmpty, "\(wrong.prefix(10).map { "\($0): \(FareCalculator.oneDecimal($0))" })")
    for zoneName in ["Europe/Zurich", "America/Los_Angeles", "Asia/Kolkata", "Australia/Lord_Howe", "UTC"] {
      let zone = try #require(TimeZone(identifier: zoneName))
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = zone
      // Every 37 minutes over a year (both DST changes), and before 1970.
      for step in stride(from: -2_000, to: 14_300, by: 1) {
        let date = Date(timeIntervalSince1970: 1_767_225_600 + Double(step) * 37 * 60)
        #expect(FareCalculator.hour(of: date, in: zone) == calendar.component(.hour, from: date), "\(zoneName) \(date)")
      }
      let early = Date(timeIntervalSince1970: -86_400 * 400 + 1_234)
      #expect(FareCalculator.hour(of: early, in: zone) == calendar.component(.hour, from: early), "\(zoneName)")
    }
  }
}
