internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import RideBookingProtos

/// The offer of one kind of ride between two points: its fare, party sizes and the time the
/// nearest driver would arrive.
enum RideOptionsQuote {
  static let disclaimer = "Fares are estimates; traffic and surge can change the final price."

  static func option(
    _ offer: RideOffer, from pickup: GeoPoint, to dropOff: GeoPoint, partySize: Int, drivers: [StoredDriver], now: Date,
    timeZone: TimeZone
  ) -> RideOption {
    let kilometres = pickup.distanceKilometres(to: dropOff)
    let fare = FareCalculator.fare(offer, kilometres: kilometres, partySize: partySize, at: now, timeZone: timeZone)
    let arrival = estimatedPickup(at: pickup, drivers: drivers, now: now)
    return .with {
      $0.name = offer.name
      $0.estimatedPickupDate = .init(date: arrival)
      $0.priceRange = fare.priceRange
      $0.usesMeteredFare = false
      $0.disclaimerMessage = disclaimer
      $0.specialPricing = fare.surge
      $0.fareLineItems = fare.fareLineItems
      $0.availablePartySizeOptions = partySizeOptions(offer, kilometres: kilometres, now: now, timeZone: timeZone)
      $0.availablePartySizeOptionsSelectionPrompt = "How many riders?"
    }
  }

  /// Party sizes in pairs up to the offer's seats, each with its price.
  static func partySizeOptions(_ offer: RideOffer, kilometres: Double, now: Date, timeZone: TimeZone)
    -> [RidePartySizeOption]
  {
    stride(from: 1, through: offer.maximumPartySize, by: 2).map { minimum in
      let maximum = min(minimum + 1, offer.maximumPartySize)
      let fare = FareCalculator.fare(offer, kilometres: kilometres, partySize: maximum, at: now, timeZone: timeZone)
      return .with {
        $0.minimumPartySize = Int32(minimum)
        $0.maximumPartySize = Int32(maximum)
        $0.sizeDescription = minimum == maximum ? "\(minimum) rider" : "\(minimum)–\(maximum) riders"
        $0.priceRange = fare.priceRange
      }
    }
  }

  /// When the nearest driver, setting off a minute from now, would reach `pickup`.
  static func estimatedPickup(at pickup: GeoPoint, drivers: [StoredDriver], now: Date) -> Date {
    guard let driver = DriverRepository.nearest(to: pickup, among: drivers) else { return now }
    let approach = max(
      120, (driver.stable.distanceKilometres(to: pickup) / RideSchedule.kilometresPerHour * 3600).rounded())
    return now.addingTimeInterval(RideSchedule.dispatchDelay + approach)
  }
}
