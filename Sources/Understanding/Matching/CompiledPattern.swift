/// A sample's form as the alignment walks it: each group of words by its number in the lexicon
/// with its weight, each slot with its declaration, the reader that reads it (numbered, so that a
/// span read once is known to every pattern that reads it the same way) and how many words it may
/// take; the intent's typed slots the form does not place, which a sentence may add anywhere.
final class CompiledPattern: Sendable {
  enum Atom: Sendable {
    case words(group: Int, weight: Double, optional: Bool)
    case slot(Slot)
  }

  struct Slot: Sendable {
    let name: String
    let slot: CompiledSlot
    let reader: Int
    /// The most words it may take.
    let longest: Int
  }

  /// What the readers are numbered by: an enum's or a vocabulary's own phrases, or a kind.
  struct Readers {
    private(set) var numbers: [String: Int] = [:]

    mutating func number(intent: String, name: String, slot: CompiledSlot) -> Int {
      let key: String
      switch slot.kind {
      case .enum, .vocabulary: key = "\(intent).\(name)"
      default: key = "\(slot.kind.rawValue)\(slot.isArray ? "[]" : "")"
      }
      if let known = numbers[key] { return known }
      numbers[key] = numbers.count
      return numbers.count - 1
    }
  }

  /// The most typed slots a sentence may add to a form.
  static let maximumFloating = 8

  let source: UtteranceMatcher.Pattern
  let atoms: [Atom]
  let floating: [Slot]
  /// The groups of its required content words, in order (one may come twice).
  let contentGroups: [Int]

  init(
    _ source: UtteranceMatcher.Pattern, of intent: UtteranceMatcher.Intent, lexicon: inout Lexicon,
    readers: inout Readers
  ) {
    self.source = source
    func compiled(_ name: String, _ slot: CompiledSlot) -> Slot {
      Slot(
        name: name, slot: slot, reader: readers.number(intent: intent.intentClass, name: name, slot: slot),
        longest: SlotReader.maximumWords(slot.kind))
    }
    var atoms: [Atom] = []
    var content: [Int] = []
    for atom in source.atoms {
      switch atom {
      case .words(let words, let optional):
        let group = lexicon.group(words)
        let weight = Weights.of(words)
        atoms.append(.words(group: group, weight: weight, optional: optional))
        if !optional && weight == 1 { content.append(group) }
      case .slot(let name):
        // A sample's slot the model does not declare is refused when the intent is built.
        guard let slot = intent.slots[name] else { continue }
        atoms.append(.slot(compiled(name, slot)))
      }
    }
    self.atoms = atoms
    contentGroups = content
    floating = intent.slots.sorted { $0.key < $1.key }
      .filter { name, slot in slot.kind.isFloating && !source.slotNames.contains(name) }
      .prefix(Self.maximumFloating).map { compiled($0.key, $0.value) }
  }
}
