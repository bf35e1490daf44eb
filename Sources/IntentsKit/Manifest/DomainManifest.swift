internal import SwiftProtobuf
package import Foundation
package import IntentMeshProtos
package import Understanding

/// A domain's manifest: its plists and its interaction model checked against its handlers, served
/// by Describe.
package struct DomainManifest: Sendable {
  package let info: ExtensionInfoPlist
  package let vocabulary: AppIntentVocabularyPlist
  /// How people say the intents (`InteractionModel.json`).
  package let interactionModel: InteractionModel
  package let restrictedWhileLocked: Set<String>
  package let proto: Intentmesh_V1_ExtensionManifest

  /// Reads `Info.plist`, `AppIntentVocabulary.plist` and `InteractionModel.json` from `directory`
  /// and checks them against `registry`: every supported class has a handler, every handler is
  /// supported, every restricted class is supported, and the interaction model fits the intents'
  /// parameters (`InteractionModelCheck`, over the domain's `types`).
  package static func load(
    directory: URL,
    registry: IntentRegistry,
    vocabularyTypes: [Intentmesh_V1_VocabularyStringType],
    appServices: [String] = [],
    types: InteractionModelCheck.Types = .none
  ) throws -> DomainManifest {
    let info = try ExtensionInfoPlist.load(from: directory.appendingPathComponent("Info.plist"))
    let vocabulary = try AppIntentVocabularyPlist.load(inManifest: directory)
    let model = try Self.interactionModel(in: directory)
    return try DomainManifest(
      info: info, vocabulary: vocabulary, interactionModel: model, registry: registry,
      vocabularyTypes: vocabularyTypes, appServices: appServices, types: types)
  }

  /// The manifest folder's `InteractionModel.json`.
  static func interactionModel(in directory: URL) throws -> InteractionModel {
    let url = directory.appendingPathComponent("InteractionModel.json")
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw ManifestError.unreadable(
        path: url.path, underlying: "every domain says how people say its intents there (\(error.localizedDescription))"
      )
    }
    do {
      return try JSONDecoder().decode(InteractionModel.self, from: data)
    } catch {
      throw ManifestError.unreadable(path: url.path, underlying: "not an interaction model: \(error)")
    }
  }

  package init(
    info: ExtensionInfoPlist,
    vocabulary: AppIntentVocabularyPlist,
    interactionModel: InteractionModel,
    registry: IntentRegistry,
    vocabularyTypes: [Intentmesh_V1_VocabularyStringType],
    appServices: [String] = [],
    types: InteractionModelCheck.Types = .none
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
    let declarations = supported.compactMap {
      try? registry.registration(for: $0).declaration(restrictedWhileLocked: false)
    }
    let problems = InteractionModelCheck.problems(
      of: interactionModel,
      intents: declarations.map { declaration in
        InteractionModelCheck.DeclaredIntent(
          intentClass: declaration.intentClass,
          parameters: declaration.parameters.map { ($0.keyPath, $0.valueType, $0.isArray) })
      }, types: types)
    guard problems.isEmpty else {
      throw ManifestError.inconsistent(
        "InteractionModel.json does not fit the intents: " + problems.joined(separator: "; "))
    }
    self.info = info
    self.vocabulary = vocabulary
    self.interactionModel = interactionModel
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
      manifest.interactionModels = interactionModel.intents.map(Intentmesh_V1_IntentInteractionModel.init)
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

extension Intentmesh_V1_IntentInteractionModel {
  /// The model as Describe serves it.
  package init(_ model: IntentModel) {
    self.init()
    intentClass = model.intent
    samples = model.samples
    slots = model.slots.map { slot in
      .with {
        $0.name = slot.name
        $0.kind = Intentmesh_V1_SlotKind(slot.kind)
        $0.enumType = slot.enumType ?? ""
        $0.path = slot.path ?? ""
        $0.synonyms = (slot.synonyms ?? [:]).sorted { $0.key < $1.key }.map { value, phrases in
          .with {
            $0.value = value
            $0.phrases = phrases
          }
        }
      }
    }
  }
}

extension Intentmesh_V1_SlotKind {
  init(_ kind: SlotKind) {
    switch kind {
    case .person: self = .person
    case .money: self = .money
    case .date: self = .date
    case .place: self = .place
    case .text: self = .text
    case .vocabulary: self = .vocabulary
    case .enum: self = .enum
    case .number: self = .number
    }
  }
}

extension InteractionModelCheck.Types {
  /// Types that know no message and no enum: slots without a path or an enum pass.
  package static let none = InteractionModelCheck.Types(fieldType: { _, _ in nil }, enumExists: { _ in false })
}
