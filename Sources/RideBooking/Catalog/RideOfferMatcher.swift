internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// Finds the offer a spoken ride option name means: its name, or a synonym the app vocabulary
/// (`AppIntentVocabulary.plist`, `INRequestRideIntent.rideOptionName`) lists for it — "two-horned
/// unicorn" for the Bicorn, "winged horse" for the Pegasus.
struct RideOfferMatcher: Sendable {
  static let parameterName = "INRequestRideIntent.rideOptionName"

  let offers: [RideOffer]
  let synonyms: [String: [String]]

  init(offers: [RideOffer] = RideOffer.catalog, vocabulary: AppIntentVocabularyPlist) {
    self.offers = offers
    var synonyms: [String: [String]] = [:]
    for item in vocabulary.items(for: Self.parameterName) {
      synonyms[item.identifier.lowercased(), default: []] += item.synonyms.map(\.phrase)
    }
    self.synonyms = synonyms
  }

  func offer(named spoken: String) -> RideOffer? {
    let words = spoken.lowercased().replacingOccurrences(of: " ride", with: "")
    return offers.first { offer in
      ([offer.name, offer.id] + (synonyms[offer.id] ?? [])).contains { NameMatching.matches(words, $0) }
    }
  }
}
