/// One pattern against the sentence's words: the best way its atoms take all the words. A word of
/// the sample may be left out, and a word the sample does not have may be said, each at a cost
/// (small for the little words — "a", "the", "my" —, large for the others); a typed slot of the
/// intent that the sample does not place (a date, an amount, a number) may be said anywhere, as
/// people add "tomorrow" or "for 3 people" where they like.
///
/// Each state (the next atom, the next word, the added slots used) is scored once and kept in a
/// flat array with the step it took; the slots' values are read only along the best path.
struct Alignment {
  /// What leaving out a word of the sample, or saying one it does not have, costs.
  static let contentPenalty = 0.5
  static let addedContentPenalty = 0.75
  static let littlePenalty = 0.1

  /// A slot the best path took: its name, the span of the matched words, what they say.
  struct Assignment {
    let name: String
    let range: Range<Int>
    let value: UtteranceMatcher.Value
  }

  /// The step a state's best way takes.
  private enum Step {
    /// The sample's word said.
    case said
    /// The sample's word left out.
    case leftOut
    /// The pattern's slot takes `length` words.
    case slot(length: Int)
    /// A word the sample does not have.
    case added
    /// An added typed slot (`floating[index]`) takes `length` words from `start`.
    case floating(index: Int, start: Int, length: Int)
  }

  private struct Entry {
    /// 0 not scored yet, 1 no way, 2 `scored` by `step`.
    var state: UInt8 = 0
    var scored = Scored()
    var step = Step.said
  }

  private let pattern: CompiledPattern
  private let reading: Reading
  private let atomCount: Int
  private let wordCount: Int
  /// States of one set of added slots: (atoms + 1) × (words + 1).
  private let blockSize: Int
  /// Each set of added slots' block in `entries`, or -1 before its first state.
  private var blocks: [Int]
  private var entries: [Entry] = []

  init(pattern: CompiledPattern, reading: Reading) {
    self.pattern = pattern
    self.reading = reading
    atomCount = pattern.atoms.count
    wordCount = reading.count
    blockSize = (atomCount + 1) * (wordCount + 1)
    blocks = Array(repeating: -1, count: 1 << pattern.floating.count)
  }

  /// The best way the pattern takes every word, or nil when there is none.
  mutating func best() -> Scored? {
    guard wordCount > 0 else { return nil }
    return best(atom: 0, word: 0, used: 0)
  }

  /// The slots along the best way (after `best()` found one), in the order of the sentence.
  func assignments() -> [Assignment] {
    var assignments: [Assignment] = []
    var (atom, word, used) = (0, 0, 0)
    while !(atom == atomCount && word == wordCount) {
      guard blocks[used] >= 0 else { break }
      let entry = entries[blocks[used] * blockSize + atom * (wordCount + 1) + word]
      guard entry.state == 2 else { break }
      switch entry.step {
      case .said:
        atom += 1
        word += 1
      case .leftOut:
        atom += 1
      case .slot(let length):
        guard case .slot(let slot) = pattern.atoms[atom] else { return assignments }
        let span = word..<(word + length)
        if let value = reading.value(span, slot: slot) {
          assignments.append(Assignment(name: slot.name, range: span, value: value))
        }
        atom += 1
        word += length
      case .added:
        word += 1
      case .floating(let index, let start, let length):
        let slot = pattern.floating[index]
        let span = start..<(start + length)
        if let value = reading.value(span, slot: slot) {
          assignments.append(Assignment(name: slot.name, range: span, value: value))
        }
        word = start + length
        used |= 1 << index
      }
    }
    return assignments
  }

  private mutating func best(atom: Int, word: Int, used: Int) -> Scored? {
    if atom == atomCount && word == wordCount { return Scored() }
    if blocks[used] < 0 {
      blocks[used] = entries.count / blockSize
      entries.append(contentsOf: repeatElement(Entry(), count: blockSize))
    }
    let index = blocks[used] * blockSize + atom * (wordCount + 1) + word
    switch entries[index].state {
    case 1: return nil
    case 2: return entries[index].scored
    default: break
    }
    var result: Scored?
    var step = Step.said
    func consider(_ candidate: Scored, _ taken: Step) {
      if result == nil || candidate.isBetter(than: result!) {
        result = candidate
        step = taken
      }
    }
    if atom < atomCount {
      switch pattern.atoms[atom] {
      case .words(let group, let weight, let optional):
        if word < wordCount, let quality = reading.match(word, group: group),
          var rest = best(atom: atom + 1, word: word + 1, used: used)
        {
          rest.literalScore += weight * quality
          if optional { rest.optionalWeight += weight }
          if weight == 1 && !optional { rest.contentMatched += 1 }
          consider(rest, .said)
        }
        // The word left out (free for an optional one).
        if var rest = best(atom: atom + 1, word: word, used: used) {
          if !optional { rest.literalScore -= weight == 1 ? Self.contentPenalty : Self.littlePenalty }
          consider(rest, .leftOut)
        }
      case .slot(let slot):
        guard word < wordCount else { break }
        let longest = min(slot.longest, wordCount - word)
        for length in 1...max(longest, 1) where length <= longest {
          guard reading.accepts(word..<(word + length), slot: slot),
            var rest = best(atom: atom + 1, word: word + length, used: used)
          else { continue }
          if slot.slot.kind.isSelfDelimiting {
            rest.typedSlots += 1
            rest.typedScore += slot.slot.kind.typedWeight
          } else {
            rest.freeWords += length
          }
          consider(rest, .slot(length: length))
        }
      }
    }
    if word < wordCount {
      // A word the sample does not have.
      if var rest = best(atom: atom, word: word + 1, used: used) {
        rest.literalScore -= reading.isContent[word] ? Self.addedContentPenalty : Self.littlePenalty
        consider(rest, .added)
      }
      // A typed slot the sample does not place: a date with the little word that leads it ("on
      // Friday"), an amount, or a number after "for" ("for 3 people"; a number alone is as likely
      // part of an address).
      for (index, slot) in pattern.floating.enumerated() where used & (1 << index) == 0 {
        if slot.slot.kind == .number && !reading.isFor[word] { continue }
        let start = reading.isLeading[word] ? word + 1 : word
        guard start < wordCount else { continue }
        let longest = min(slot.longest, wordCount - start)
        for length in 1...max(longest, 1) where length <= longest {
          guard reading.accepts(start..<(start + length), slot: slot),
            var rest = best(atom: atom, word: start + length, used: used | (1 << index))
          else { continue }
          rest.typedSlots += 1
          rest.typedScore += slot.slot.kind.typedWeight
          rest.floatingSlots += 1
          consider(rest, .floating(index: index, start: start, length: length))
        }
      }
    }
    // The recursion may have added blocks: the index of this state's block stays.
    if let result {
      entries[index] = Entry(state: 2, scored: result, step: step)
    } else {
      entries[index].state = 1
    }
    return result
  }
}
