/// Whether an interaction model fits the intents it speaks of: every model names a declared intent
/// and every declared intent has one; every slot names one of its intent's parameters, its kind
/// fits the type the value lands in (`path` followed through the parameter's type), an enum slot
/// names an enum that exists; every sample parses and uses only declared slots, and no two slots
/// stand side by side unless one of them says where it ends (an amount, a date…). A domain
/// service refuses to start with the problems this finds; the conformance kit checks the same.
package enum InteractionModelCheck {
  /// An intent as its domain declares it.
  package struct DeclaredIntent: Sendable {
    package let intentClass: String
    /// Each parameter's key path, full value type name and whether it is an array.
    package let parameters: [(keyPath: String, valueType: String, isArray: Bool)]

    package init(intentClass: String, parameters: [(keyPath: String, valueType: String, isArray: Bool)]) {
      self.intentClass = intentClass
      self.parameters = parameters
    }
  }

  /// What the check asks of the domain's types: the type of a message's field by its JSON or
  /// proto name (nil: no such field), and whether an enum of a full name exists.
  package struct Types: Sendable {
    package let fieldType: @Sendable (_ message: String, _ field: String) -> String?
    package let enumExists: @Sendable (_ name: String) -> Bool

    package init(
      fieldType: @escaping @Sendable (String, String) -> String?, enumExists: @escaping @Sendable (String) -> Bool
    ) {
      self.fieldType = fieldType
      self.enumExists = enumExists
    }
  }

  /// The types each kind's value may land in.
  package static let acceptedTypes: [SlotKind: Set<String>] = [
    .person: ["intentmesh.v1.Person", "google.protobuf.StringValue", "string", "intentmesh.v1.SpeakableString"],
    .text: ["google.protobuf.StringValue", "string", "intentmesh.v1.SpeakableString"],
    .place: ["intentmesh.v1.Placemark", "google.protobuf.StringValue", "string", "intentmesh.v1.SpeakableString"],
    .vocabulary: ["intentmesh.v1.SpeakableString", "google.protobuf.StringValue", "string"],
    .money: ["intentmesh.v1.CurrencyAmount"],
    .date: ["intentmesh.v1.DateComponentsRange", "intentmesh.v1.DateComponents"],
    .number: [
      "google.protobuf.Int32Value", "google.protobuf.Int64Value", "google.protobuf.DoubleValue",
      "google.protobuf.FloatValue", "google.protobuf.UInt32Value", "int32", "int64", "double", "float", "uint32",
    ],
    .enum: ["google.protobuf.Int32Value", "int32"],
  ]

  /// The problems of `model` against `intents`, each a sentence; empty when it fits.
  package static func problems(of model: InteractionModel, intents: [DeclaredIntent], types: Types) -> [String] {
    var problems: [String] = []
    let declared = Dictionary(intents.map { ($0.intentClass, $0) }, uniquingKeysWith: { first, _ in first })
    var modelled = Set<String>()
    for intentModel in model.intents {
      let name = intentModel.intent
      guard let intent = declared[name] else {
        problems.append("\(name): no such intent is declared")
        continue
      }
      guard modelled.insert(name).inserted else {
        problems.append("\(name): modelled twice")
        continue
      }
      problems += slotProblems(intentModel, intent: intent, types: types)
      problems += sampleProblems(intentModel)
    }
    for intent in intents where !modelled.contains(intent.intentClass) {
      problems.append("\(intent.intentClass): no interaction model (how people say it)")
    }
    return problems
  }

  private static func slotProblems(_ model: IntentModel, intent: DeclaredIntent, types: Types) -> [String] {
    var problems: [String] = []
    var names = Set<String>()
    for slot in model.slots {
      let at = "\(model.intent).\(slot.name)"
      guard names.insert(slot.name).inserted else {
        problems.append("\(at): declared twice")
        continue
      }
      guard let parameter = intent.parameters.first(where: { $0.keyPath == slot.name }) else {
        problems.append(
          "\(at): not a parameter of \(model.intent) (its parameters: \(intent.parameters.map(\.keyPath).joined(separator: ", ")))"
        )
        continue
      }
      var type = parameter.valueType
      for field in (slot.path ?? "").split(separator: ".").map(String.init) {
        guard let next = types.fieldType(type, field) else {
          problems.append("\(at): \(type) has no field \(field) (path \(slot.path ?? ""))")
          type = ""
          break
        }
        type = next
      }
      guard !type.isEmpty else { continue }
      if slot.kind == .enum {
        guard let enumType = slot.enumType, !enumType.isEmpty else {
          problems.append("\(at): an enum slot names its enum (enumType)")
          continue
        }
        guard types.enumExists(enumType) else {
          problems.append("\(at): no enum \(enumType) among the domain's types")
          continue
        }
        if type == enumType { continue }
      }
      guard acceptedTypes[slot.kind]?.contains(type) == true else {
        let accepted = (acceptedTypes[slot.kind] ?? []).sorted().joined(separator: ", ")
        problems.append("\(at): a \(slot.kind.rawValue) slot cannot fill \(type) (it fills \(accepted))")
        continue
      }
    }
    return problems
  }

  private static func sampleProblems(_ model: IntentModel) -> [String] {
    guard !model.samples.isEmpty else { return ["\(model.intent): no samples"] }
    var problems: [String] = []
    let kinds = Dictionary(model.slots.map { ($0.name, $0.kind) }, uniquingKeysWith: { first, _ in first })
    for sample in model.samples {
      do {
        let template = try SampleTemplate(sample)
        for name in template.slots.sorted() where kinds[name] == nil {
          problems.append("\(model.intent): sample \"\(sample)\" names {\(name)}, which is not a declared slot")
        }
        for pattern in template.patterns {
          for (left, right) in zip(pattern, pattern.dropFirst()) {
            guard case .slot(let a) = left, case .slot(let b) = right, let kindA = kinds[a], let kindB = kinds[b]
            else { continue }
            if !kindA.isSelfDelimiting && !kindB.isSelfDelimiting {
              problems.append(
                "\(model.intent): sample \"\(sample)\" puts {\(a)} and {\(b)} side by side: words between them, or one of a kind that ends itself (money, date, number, enum, vocabulary)"
              )
            }
          }
        }
      } catch {
        problems.append("\(model.intent): \(error)")
      }
    }
    return problems
  }
}
