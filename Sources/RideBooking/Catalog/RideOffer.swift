/// A kind of ride UnicornRides offers: its seats, its vehicle and its tariff in cents.
struct RideOffer: Sendable, Equatable {
  /// The identifier the app vocabulary's synonyms point at ("bicorn").
  var id: String
  var name: String
  var maximumPartySize: Int
  var baseCents: Int64
  var centsPerKilometre: Int64
  /// Extra cents per rider beyond two (bigger parties need bigger wings).
  var centsPerExtraRider: Int64
  var manufacturer: String
  var model: String

  /// The three rides of the sessions: a unicorn, a bicorn ("Get me a bicorn ride"), a Pegasus for
  /// up to six ("get me a Pegasus for 6 people").
  static let catalog: [RideOffer] = [
    RideOffer(
      id: "unicorn", name: "Unicorn", maximumPartySize: 4, baseCents: 300, centsPerKilometre: 180,
      centsPerExtraRider: 0, manufacturer: "Rainbow Stables", model: "Classic Unicorn"),
    RideOffer(
      id: "bicorn", name: "Bicorn", maximumPartySize: 2, baseCents: 500, centsPerKilometre: 250,
      centsPerExtraRider: 0, manufacturer: "Rainbow Stables", model: "Twin-Horn Bicorn"),
    RideOffer(
      id: "pegasus", name: "Pegasus", maximumPartySize: 6, baseCents: 900, centsPerKilometre: 400,
      centsPerExtraRider: 150, manufacturer: "Cloud Aviaries", model: "Winged Pegasus"),
  ]
}
