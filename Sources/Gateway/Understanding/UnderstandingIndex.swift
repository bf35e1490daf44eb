internal import IntentMeshProtos
internal import Logging
internal import ProtoJSON
internal import Synchronization
internal import Understanding

/// The routed domains' interaction models, compiled for `Understand` (`UtteranceMatcher`) with
/// what filling a candidate's payload needs: each intent's payload type and parameters, each
/// slot's declaration, and the domains' types (enum cases, message fields) from their reflection.
/// Compiled again when the directory changes — a domain comes, goes, or declares other intents —
/// as the routing table is.
final class UnderstandingIndex: Sendable {
  /// The models as matched, and what filling them needs.
  struct Compiled: Sendable {
    let matcher: UtteranceMatcher
    let intents: [Key: IntentTarget]
    let schema: ProtoSchema
  }

  struct Key: Hashable, Sendable {
    let appName: String
    let intentClass: String
  }

  /// Where an intent's slots land.
  struct IntentTarget: Sendable {
    let payloadType: String
    /// Each parameter's value type and whether it is an array, by key path.
    let parameters: [String: (valueType: String, isArray: Bool)]
    let slots: [String: SlotDeclaration]
  }

  private let directory: DomainDirectory
  private let schema: @Sendable () -> ProtoSchema
  private let logger: Logger
  private let current = Mutex<(generation: Int, compiled: Compiled)?>(nil)

  init(directory: DomainDirectory, schema: @escaping @Sendable () -> ProtoSchema, logger: Logger) {
    self.directory = directory
    self.schema = schema
    self.logger = logger
  }

  /// The models as the directory knows them now.
  func compiled() -> Compiled {
    let generation = directory.generation
    if let known = current.withLock({ $0?.generation == generation ? $0?.compiled : nil }) { return known }
    let compiled = compile(manifests: directory.table.manifests, schema: schema())
    current.withLock { $0 = (generation, compiled) }
    return compiled
  }

  func compile(manifests: [Intentmesh_V1_ExtensionManifest], schema: ProtoSchema) -> Compiled {
    var domains: [UtteranceMatcher.Domain] = []
    var targets: [Key: IntentTarget] = [:]
    for manifest in manifests {
      var intents: [UtteranceMatcher.Intent] = []
      for model in manifest.interactionModels {
        guard let declaration = manifest.intents.first(where: { $0.intentClass == model.intentClass }) else { continue }
        let parameters = Dictionary(
          declaration.parameters.map { ($0.keyPath, (valueType: $0.valueType, isArray: $0.isArray)) },
          uniquingKeysWith: { first, _ in first })
        var slots: [String: CompiledSlot] = [:]
        var declarations: [String: SlotDeclaration] = [:]
        for slot in model.slots {
          let declared = SlotDeclaration(slot)
          declarations[slot.name] = declared
          slots[slot.name] = CompiledSlot(
            declaration: declared, isArray: parameters[slot.name]?.isArray ?? false,
            choices: Self.choices(for: declared, intent: model.intentClass, manifest: manifest, schema: schema))
        }
        do {
          intents.append(try UtteranceMatcher.Intent(model: IntentModel(model), slots: slots))
          targets[Key(appName: manifest.appName, intentClass: model.intentClass)] = IntentTarget(
            payloadType: declaration.payloadType, parameters: parameters, slots: declarations)
        } catch {
          // The domain checks its model at start; one that does not parse here is left out.
          logger.warning(
            "interaction model left out", metadata: ["app": "\(manifest.appName)", "problem": "\(error)"])
        }
      }
      domains.append(
        UtteranceMatcher.Domain(
          appName: manifest.appName, alternativeNames: manifest.alternativeAppNames.map(\.name), intents: intents))
    }
    return Compiled(matcher: UtteranceMatcher(domains: domains), intents: targets, schema: schema)
  }

  /// An enum slot's cases from the domain's types; a vocabulary slot's items from the domain's
  /// ParameterVocabularies for this intent's parameter (or, when it declares none, the same
  /// parameter of another of its intents: a workout's name is the same whatever is done to it).
  static func choices(
    for slot: SlotDeclaration, intent: String, manifest: Intentmesh_V1_ExtensionManifest, schema: ProtoSchema
  ) -> [CompiledSlot.Choice] {
    switch slot.kind {
    case .enum:
      guard let cases = slot.enumType.flatMap({ schema.enums[$0] }) else { return [] }
      return CompiledSlot.enumChoices(caseNames: cases.byName.keys.sorted(), synonyms: slot.synonyms)
    case .vocabulary:
      let exact = manifest.parameterVocabularies.filter { $0.parameterNames.contains("\(intent).\(slot.name)") }
      let vocabularies =
        exact.isEmpty
        ? manifest.parameterVocabularies.filter { $0.parameterNames.contains { $0.hasSuffix(".\(slot.name)") } }
        : exact
      let items = vocabularies.flatMap(\.items).map { (identifier: $0.identifier, phrases: $0.synonyms.map(\.phrase)) }
      return CompiledSlot.vocabularyChoices(items: items, synonyms: slot.synonyms)
    default:
      return []
    }
  }
}

extension SlotDeclaration {
  init(_ slot: Intentmesh_V1_InteractionSlot) {
    var synonyms: [String: [String]] = [:]
    for entry in slot.synonyms { synonyms[entry.value, default: []] += entry.phrases }
    self.init(
      name: slot.name, kind: SlotKind(slot.kind) ?? .text, enumType: slot.enumType.isEmpty ? nil : slot.enumType,
      path: slot.path.isEmpty ? nil : slot.path, synonyms: synonyms.isEmpty ? nil : synonyms)
  }
}

extension IntentModel {
  init(_ model: Intentmesh_V1_IntentInteractionModel) {
    self.init(intent: model.intentClass, slots: model.slots.map(SlotDeclaration.init), samples: model.samples)
  }
}

extension SlotKind {
  init?(_ kind: Intentmesh_V1_SlotKind) {
    switch kind {
    case .person: self = .person
    case .money: self = .money
    case .date: self = .date
    case .place: self = .place
    case .text: self = .text
    case .vocabulary: self = .vocabulary
    case .enum: self = .enum
    case .number: self = .number
    case .unspecified, .UNRECOGNIZED: return nil
    }
  }
}
