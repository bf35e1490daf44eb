/// A slot ready to be matched: its declaration, whether its parameter holds several values, and
/// for enum and vocabulary slots every phrase that names one of their values.
package struct CompiledSlot: Sendable {
  package struct Choice: Sendable, Equatable {
    /// The phrase's words.
    package let words: [String]
    /// What it stands for: an enum case's name, or a vocabulary item's identifier.
    package let value: String
  }

  package let declaration: SlotDeclaration
  package let isArray: Bool
  package let choices: [Choice]

  package init(declaration: SlotDeclaration, isArray: Bool, choices: [Choice] = []) {
    self.declaration = declaration
    self.isArray = isArray
    self.choices = choices
  }

  package var kind: SlotKind { declaration.kind }

  /// The phrases of an enum's cases, named as protobuf names them (`ACCOUNT_TYPE_SAVING`): the
  /// name without the prefix every case shares, in words ("saving"), its plural ("savings"), and
  /// the declared synonyms. The zero case (`…_UNSPECIFIED`) is not one a person names.
  package static func enumChoices(caseNames: [String], synonyms: [String: [String]]?) -> [Choice] {
    let named = caseNames.filter { !$0.hasSuffix("_UNSPECIFIED") && !$0.hasSuffix("_UNKNOWN") }
    let prefix = commonPrefix(named.count > 1 ? named : caseNames)
    var choices: [Choice] = []
    for name in named {
      let words = name.dropFirst(prefix.count).lowercased().split(separator: "_").map(String.init)
      guard !words.isEmpty else { continue }
      choices.append(Choice(words: words, value: name))
      if let last = words.last, !last.hasSuffix("s") {
        choices.append(Choice(words: words.dropLast() + [last + "s"], value: name))
      }
      for phrase in synonyms?[name] ?? [] {
        choices.append(Choice(words: Utterance(phrase).words.map(\.text), value: name))
      }
    }
    return choices
  }

  /// Vocabulary items' phrases (and declared synonyms) by identifier.
  package static func vocabularyChoices(items: [(identifier: String, phrases: [String])], synonyms: [String: [String]]?)
    -> [Choice]
  {
    items.flatMap { item in
      ([item.identifier] + item.phrases + (synonyms?[item.identifier] ?? [])).map {
        Choice(words: Utterance($0).words.map(\.text), value: item.identifier)
      }
    }
  }

  /// The longest prefix ending in "_" that every name shares.
  private static func commonPrefix(_ names: [String]) -> String {
    guard var prefix = names.first else { return "" }
    for name in names.dropFirst() {
      while !name.hasPrefix(prefix) { prefix.removeLast() }
    }
    guard let underscore = prefix.lastIndex(of: "_") else { return "" }
    return String(prefix[...underscore])
  }
}
