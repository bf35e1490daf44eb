internal import IntentMeshProtos
package import Foundation
internal import IntentMeshCore

/// A domain's `AppIntentVocabulary.plist`: `ParameterVocabularies` (terms and their synonyms for
/// some parameters) and `IntentPhrases` (sample utterances), as SiriKit reads it.
package struct AppIntentVocabularyPlist: Decodable, Sendable, Equatable {
  package struct ParameterVocabulary: Decodable, Sendable, Equatable {
    package var parameterNames: [String]
    package var items: [Item]

    enum CodingKeys: String, CodingKey {
      case parameterNames = "ParameterNames"
      case items = "ParameterVocabulary"
    }
  }

  package struct Item: Decodable, Sendable, Equatable {
    package var identifier: String
    package var synonyms: [Synonym]

    enum CodingKeys: String, CodingKey {
      case identifier = "VocabularyItemIdentifier"
      case synonyms = "VocabularyItemSynonyms"
    }
  }

  package struct Synonym: Decodable, Sendable, Equatable {
    package var phrase: String
    package var pronunciation: String?
    package var examples: [String]?

    enum CodingKeys: String, CodingKey {
      case phrase = "VocabularyItemPhrase"
      case pronunciation = "VocabularyItemPronunciation"
      case examples = "VocabularyItemExamples"
    }
  }

  package struct IntentPhrase: Decodable, Sendable, Equatable {
    package var intentName: String
    package var examples: [String]

    enum CodingKeys: String, CodingKey {
      case intentName = "IntentName"
      case examples = "IntentExamples"
    }
  }

  package var parameterVocabularies: [ParameterVocabulary]
  package var intentPhrases: [IntentPhrase]

  enum CodingKeys: String, CodingKey {
    case parameterVocabularies = "ParameterVocabularies"
    case intentPhrases = "IntentPhrases"
  }

  package init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    parameterVocabularies =
      try container.decodeIfPresent([ParameterVocabulary].self, forKey: .parameterVocabularies) ?? []
    intentPhrases = try container.decodeIfPresent([IntentPhrase].self, forKey: .intentPhrases) ?? []
  }

  /// The manifest folder's `AppIntentVocabulary.plist`, or an empty vocabulary when it has none.
  package static func load(inManifest directory: URL) throws -> AppIntentVocabularyPlist {
    let url = directory.appendingPathComponent("AppIntentVocabulary.plist")
    return FileManager.default.fileExists(atPath: url.path) ? try load(from: url) : try empty()
  }

  /// The terms declared for `parameterName` ("INRequestRideIntent.rideOptionName"), each with its
  /// synonyms' phrases.
  package func items(for parameterName: String) -> [Item] {
    parameterVocabularies.filter { $0.parameterNames.contains(parameterName) }.flatMap(\.items)
  }

  package static func load(from url: URL) throws -> AppIntentVocabularyPlist {
    do {
      return try PropertyListDecoder().decode(AppIntentVocabularyPlist.self, from: Data(contentsOf: url))
    } catch {
      throw ManifestError.unreadable(path: url.path, underlying: "\(error)")
    }
  }

  /// The identifier of the term `phrase` names for `parameterName` ("INRequestRideIntent.rideOptionName"),
  /// matching synonyms case- and space-insensitively.
  package func identifier(for phrase: String, parameterName: String) -> String? {
    let wanted = NameMatching.normalized(phrase)
    for vocabulary in parameterVocabularies where vocabulary.parameterNames.contains(parameterName) {
      for item in vocabulary.items {
        if NameMatching.normalized(item.identifier) == wanted
          || item.synonyms.contains(where: { NameMatching.normalized($0.phrase) == wanted })
        {
          return item.identifier
        }
      }
    }
    return nil
  }
}
