internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Understanding

#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif

/// `Understand`: a sentence checked (1 to 1,000 characters, no control characters: INVALID_ARGUMENT
/// otherwise), matched against the routed domains' models, and each match made an intent with its
/// payload filled as said, in the user's time zone and locale.
struct Understander: Sendable {
  let index: UnderstandingIndex
  /// The moment sentences are read at ("tomorrow").
  var now: @Sendable () -> Date = { Date() }

  /// The most characters a sentence may have.
  static let maxCharacters = 1000

  func candidates(text: String, appName: String, context: Intentmesh_V1_RequestContext) throws
    -> [Intentmesh_Gateway_V1_Candidate]
  {
    try Self.check(text)
    let compiled = index.compiled()
    let timeZone = TimeZone(identifier: context.timeZone) ?? TimeZone(identifier: "UTC")!
    let matches = compiled.matcher.candidates(
      text, appName: appName, context: .init(now: now(), timeZone: timeZone, locale: context.locale))
    return matches.compactMap { match in
      let key = UnderstandingIndex.Key(appName: match.appName, intentClass: match.intentClass)
      guard let target = compiled.intents[key],
        let intent = try? CandidatePayload.intent(
          for: match, target: target, schema: compiled.schema, timeZone: context.timeZone)
      else { return nil }
      return .with {
        $0.intent = intent
        $0.confidence = (match.confidence * 1000).rounded() / 1000
        $0.sample = match.sample
        $0.slots = match.slots.map { slot in
          .with {
            $0.name = slot.name
            $0.text = slot.text
            $0.start = Int32(slot.start)
            $0.end = Int32(slot.end)
          }
        }
      }
    }
  }

  /// Refuses text that is no sentence: empty, longer than the limit, or with control characters.
  static func check(_ text: String) throws {
    guard !text.allSatisfy(\.isWhitespace) else {
      throw GatewayError.invalidArgument("text is empty: give what the user said")
    }
    let count = text.unicodeScalars.count
    guard count <= maxCharacters else {
      throw GatewayError.invalidArgument(
        "text is \(count) characters; Understand takes at most \(maxCharacters) (one request of one user)")
    }
    if let (offset, scalar) = text.unicodeScalars.enumerated().first(where: {
      $0.element.properties.generalCategory == .control && $0.element != "\t" && $0.element != "\n"
    }) {
      throw GatewayError.invalidArgument(
        "text has a control character (U+\(String(scalar.value, radix: 16, uppercase: true))) at \(offset)")
    }
  }
}
