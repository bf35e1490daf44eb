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

  /// What a line of a fare charges for; its title is written only when the lines are shown (the
  /// ride options' `fareLineItems`) — a booking needs the total, not the words.
  enum Charge: Sendable {
    case base
    case distance(kilometres: Double)
    case extraRiders(Int)
    case surge
    case bookingFee

    var title: String {
      switch self {
      case .base: "Base fare"
      case .distance(let kilometres): "Distance (\(FareCalculator.oneDecimal(kilometres)) km)"
      case .extraRiders(let count): "\(count) extra riders"
      case .surge: "Surge 1.5x"
      case .bookingFee: "Booking fee"
      }
    }
  }

  struct Fare: Sendable {
    var lineItems: [(charge: Charge, cents: Int64)]
    var surge: String
    var totalCents: Int64 { lineItems.reduce(0) { $0 + $1.cents } }
    var maximumCents: Int64 { (totalCents * 6 + 4) / 5 }

    var priceRange: PriceRange {
      .with {
        $0.minimumPrice = .cents(totalCents)
        $0.maximumPrice = .cents(maximumCents)
      }
    }

    var fareLineItems: [RideFareLineItem] {
      lineItems.map { item in
        .with {
          $0.title = item.charge.title
          $0.price = .cents(item.cents)
        }
      }
    }
  }

  static func fare(
    _ offer: RideOffer, kilometres: Double, partySize: Int, at date: Date, timeZone: TimeZone
  ) -> Fare {
    let distanceCents = Int64((kilometres * Double(offer.centsPerKilometre)).rounded())
    // Labelled as `Fare.lineItems` is (an unlabelled array would be converted element by element),
    // and made with room for every line.
    var items: [(charge: Charge, cents: Int64)] = []
    items.reserveCapacity(5)
    items.append((.base, offer.baseCents))
    items.append((.distance(kilometres: kilometres), distanceCents))
    if partySize > 2, offer.centsPerExtraRider > 0 {
      items.append((.extraRiders(partySize - 2), Int64(partySize - 2) * offer.centsPerExtraRider))
    }
    let surge = surgeHours.contains(hour(of: date, in: timeZone))
    if surge {
      let subtotal = items.reduce(Int64(0)) { $0 + $1.cents }
      items.append((.surge, subtotal / 2))
    }
    items.append((.bookingFee, bookingFeeCents))
    return Fare(lineItems: items, surge: surge ? "1.5x Surge" : "")
  }

  /// `value` with one decimal, as C's `%.1f` writes it: the exact binary value rounded to tenths,
  /// a tie to the even tenth. Worked out here (the signs of `fma`'s exactly rounded differences
  /// decide the rounding) instead of by `vsnprintf`, which a ride's fare paid on every call.
  static func oneDecimal(_ value: Double) -> String {
    let magnitude = value.magnitude
    guard value.isFinite, magnitude < 1e14 else { return printfOneDecimal(value) }
    // ⌊magnitude × 10⌋ exactly: the rounded product may have rounded up to the next whole number
    // (0.3 × 10 → 3.0), never down past one (a whole number this small is a double itself).
    var tenths = (magnitude * 10).rounded(.down)
    if fma(magnitude, 10, -tenths) < 0 { tenths -= 1 }
    let pastHalf = fma(magnitude, 10, -(tenths + 0.5))
    if pastHalf > 0 || (pastHalf == 0 && tenths.truncatingRemainder(dividingBy: 2) == 1) { tenths += 1 }
    // Written right to left: the tenth, the point, the whole part, the sign.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
      var rest = UInt64(tenths)
      var start = buffer.count
      func put(_ byte: UInt8) {
        start -= 1
        buffer[start] = byte
      }
      put(UInt8(ascii: "0") + UInt8(rest % 10))
      put(UInt8(ascii: "."))
      rest /= 10
      repeat {
        put(UInt8(ascii: "0") + UInt8(rest % 10))
        rest /= 10
      } while rest > 0
      if value.sign == .minus { put(UInt8(ascii: "-")) }
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
    }
  }

  /// `value` through C's `%.1f`: for what `oneDecimal` does not work out itself. The longest is
  /// -DBL_MAX's: a sign, 309 digits, ".0" and the terminating NUL.
  private static func printfOneDecimal(_ value: Double) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 400) { buffer in
      _ = withVaList([value]) { vsnprintf(buffer.baseAddress!, buffer.count, "%.1f", $0) }
      return String(cString: buffer.baseAddress!)
    }
  }

  /// The hour of the day (0–23) at `date` on the clocks of `timeZone`.
  static func hour(of date: Date, in timeZone: TimeZone) -> Int {
    let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
    let hours = Int((local / 3600).rounded(.down))
    return (hours % 24 + 24) % 24
  }

}
