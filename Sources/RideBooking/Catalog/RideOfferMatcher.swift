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
    let words = Self.withoutRideWord(spoken.lowercased())
    guard !words.isEmpty else { return nil }
    let wanted = NameMatching.normalized(words)
    // By index: a zip would copy each offer it passes.
    return foldedNames.firstIndex { $0.contains(wanted) }.map { offers[$0] }
  }

  /// `text` without each " ride" in it ("pegasus ride" names the Pegasus). An ASCII text (most) is
  /// searched byte by byte; any other keeps the standard library's search by characters, which a
  /// combining accent after the "e" stops.
  static func withoutRideWord(_ text: String) -> String {
    let word = Array(" ride".utf8)
    let bytes = Array(text.utf8)
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return text.replacing(" ride", with: "") }
    var kept: [UInt8] = []
    kept.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
      if bytes.count - index >= word.count, bytes[index..<(index + word.count)].elementsEqual(word) {
        index += word.count
      } else {
        kept.append(bytes[index])
        index += 1
      }
    }
    return String(decoding: kept, as: UTF8.self)
  }
}
