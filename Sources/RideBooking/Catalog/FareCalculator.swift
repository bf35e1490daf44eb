internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import RideBookingProtos

/// Prices a ride: base fare, distance, riders beyond two, a booking fee and evening surge
/// (17:00–19:59 in the rider's time zone, "1.5x Surge"). Exact cents; the range's top allows 20 %
/// for traffic.
enum FareCalculator {
  static let bookingFeeCents: Int64 = 150
  static let surgeHours = 17...19

  struct Fare: Sendable, Equatable {
    var lineItems: [(title: String, cents: Int64)]
    var surge: String
    var totalCents: Int64 { lineItems.reduce(0) { $0 + $1.cents } }
    var maximumCents: Int64 { (totalCents * 6 + 4) / 5 }

    static func == (lhs: Fare, rhs: Fare) -> Bool {
      lhs.surge == rhs.surge && lhs.lineItems.map(\.title) == rhs.lineItems.map(\.title)
        && lhs.lineItems.map(\.cents) == rhs.lineItems.map(\.cents)
    }

    var priceRange: PriceRange {
      .with {
        $0.minimumPrice = .cents(totalCents)
        $0.maximumPrice = .cents(maximumCents)
      }
    }

    var fareLineItems: [RideFareLineItem] {
      lineItems.map { item in
        .with {
          $0.title = item.title
          $0.price = .cents(item.cents)
        }
      }
    }
  }

  static func fare(
    _ offer: RideOffer, kilometres: Double, partySize: Int, at date: Date, timeZone: TimeZone
  ) -> Fare {
    let distanceCents = Int64((kilometres * Double(offer.centsPerKilometre)).rounded())
    var items: [(String, Int64)] = [
      ("Base fare", offer.baseCents),
      (String(format: "Distance (%.1f km)", kilometres), distanceCents),
    ]
    if partySize > 2, offer.centsPerExtraRider > 0 {
      items.append(("\(partySize - 2) extra riders", Int64(partySize - 2) * offer.centsPerExtraRider))
    }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let surge = surgeHours.contains(calendar.component(.hour, from: date))
    if surge {
      let subtotal = items.reduce(Int64(0)) { $0 + $1.1 }
      items.append(("Surge 1.5x", subtotal / 2))
    }
    items.append(("Booking fee", bookingFeeCents))
    return Fare(lineItems: items, surge: surge ? "1.5x Surge" : "")
  }
}
