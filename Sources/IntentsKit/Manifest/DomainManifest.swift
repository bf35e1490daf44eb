internal import SwiftProtobuf
package import Foundation
package import IntentMeshProtos

/// A domain's manifest: its plists checked against its handlers, served by Describe.
package struct DomainManifest: Sendable {
  package let info: ExtensionInfoPlist
  package let vocabulary: AppIntentVocabularyPlist
  package let restrictedWhileLocked: Set<String>
  package let proto: Intentmesh_V1_ExtensionManifest

  /// Reads `Info.plist` and `AppIntentVocabulary.plist` from `directory` and checks them against
  /// `registry`: every supported class has a handler, every handler is supported, every restricted
  /// class is supported.
  package static func load(
    directory: URL,
    registry: IntentRegistry,
    vocabularyTypes: [Intentmesh_V1_VocabularyStringType],
    appServices: [String] = []
  ) throws -> DomainManifest {
    let info = try ExtensionInfoPlist.load(from: directory.appendingPathComponent("Info.plist"))
    let vocabulary = try AppIntentVocabularyPlist.load(inManifest: directory)
    return try DomainManifest(
      info: info, vocabulary: vocabulary, registry: registry, vocabularyTypes: vocabularyTypes,
      appServices: appServices)
  }

  package init(
    info: ExtensionInfoPlist,
    vocabulary: AppIntentVocabularyPlist,
    registry: IntentRegistry,
    vocabularyTypes: [Intentmesh_V1_VocabularyStringType],
    appServices: [String] = []
  ) throws {
    let supported = info.intentsSupported
    let handled = Set(registry.registrations.map(\.intentClass))
    if let missing = supported.first(where: { !handled.contains($0) }) {
      throw ManifestError.inconsistent("IntentsSupported lists \(missing), but the service has no handler for it")
    }
    if let extra = registry.registrations.first(where: { !supported.contains($0.intentClass) }) {
      throw ManifestError.inconsistent(
        "the service handles \(extra.intentClass), but IntentsSupported does not list it")
    }
    if let stray = info.intentsRestrictedWhileLocked.first(where: { !supported.contains($0) }) {
      throw ManifestError.inconsistent("IntentsRestrictedWhileLocked lists \(stray), which IntentsSupported does not")
    }
    if (info.alternativeAppNames?.count ?? 0) > 3 {
      throw ManifestError.inconsistent("INAlternativeAppNames holds at most three names")
    }
    self.info = info
    self.vocabulary = vocabulary
    self.restrictedWhileLocked = Set(info.intentsRestrictedWhileLocked)
    let restricted = restrictedWhileLocked
    self.proto = .with { manifest in
      manifest.appName = info.displayName
      manifest.alternativeAppNames = (info.alternativeAppNames ?? []).map { name in
        .with {
          $0.name = name.name
          $0.pronunciationHint = name.pronunciationHint ?? ""
        }
      }
      manifest.intents = supported.compactMap { intentClass in
        (try? registry.registration(for: intentClass))?.declaration(
          restrictedWhileLocked: restricted.contains(intentClass))
      }
      manifest.intentsRestrictedWhileLocked = info.intentsRestrictedWhileLocked
      manifest.vocabularyTypes = vocabularyTypes
      manifest.parameterVocabularies = vocabulary.parameterVocabularies.map { entry in
        .with {
          $0.parameterNames = entry.parameterNames
          $0.items = entry.items.map { item in
            .with {
              $0.identifier = item.identifier
              $0.synonyms = item.synonyms.map { synonym in
                .with {
                  $0.phrase = synonym.phrase
                  $0.pronunciation = synonym.pronunciation ?? ""
                  $0.examples = synonym.examples ?? []
                }
              }
            }
          }
        }
      }
      manifest.intentPhrases = vocabulary.intentPhrases.map { phrase in
        .with {
          $0.intentName = phrase.intentName
          $0.examples = phrase.examples
        }
      }
      manifest.serviceVersion = info.version ?? ""
      manifest.appServices = appServices
    }
  }
}

extension AppIntentVocabularyPlist {
  /// A vocabulary with no entries, for domains without the file.
  static func empty() throws -> AppIntentVocabularyPlist {
    let data = try PropertyListSerialization.data(fromPropertyList: [String: Any](), format: .xml, options: 0)
    return try PropertyListDecoder().decode(AppIntentVocabularyPlist.self, from: data)
  }
}
