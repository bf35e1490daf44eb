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
  /// Each offer's name, identifier and synonyms, folded once (`NameMatching`), in the order of
  /// `offers`.
  private let foldedNames: [[String]]

  init(offers: [RideOffer] = RideOffer.catalog, vocabulary: AppIntentVocabularyPlist) {
    self.offers = offers
    var synonyms: [String: [String]] = [:]
    for item in vocabulary.items(for: Self.parameterName) {
      synonyms[item.identifier.lowercased(), default: []] += item.synonyms.map(\.phrase)
    }
    self.synonyms = synonyms
    foldedNames = offers.map { offer in
      ([offer.name, offer.id] + (synonyms[offer.id] ?? [])).map(NameMatching.normalized)
    }
  }

  func offer(named spoken: String) -> RideOffer? {
    let words = spoken.lowercased().replacing(" ride", with: "")
    guard !words.isEmpty else { return nil }
    let wanted = NameMatching.normalized(words)
    return zip(offers, foldedNames).first { $0.1.contains(wanted) }?.0
  }
}
