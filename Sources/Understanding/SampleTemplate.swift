/// One sample utterance of an intent, with its slots: `send {recipients} a message [saying
/// {content}]`, `(pay|send) {payee} {currencyAmount}`. Words are matched as the user's words are
/// read (`Utterance`); `{name}` is a slot, the words it covers are that parameter's value as
/// spoken; `[…]` may be left out; `(a|b c)` is one of its alternatives. Parsed once, and expanded
/// into the plain sequences of words and slots it stands for (`patterns`).
package struct SampleTemplate: Sendable, Equatable {
  /// One element of an expanded sample.
  package enum Atom: Sendable, Equatable, Hashable {
    /// One of these words (one word, or a group of one-word alternatives: `(pay|send)`);
    /// `optional`: or none (`[a|the]`).
    case words(Set<String>, optional: Bool)
    case slot(String)

    /// One required word.
    package static func word(_ word: String) -> Atom { .words([word], optional: false) }
  }

  /// Why a sample is not one.
  package struct Failure: Error, Equatable, CustomStringConvertible {
    package let sample: String
    package let reason: String
    package var description: String { "sample \"\(sample)\": \(reason)" }
  }

  package let text: String
  /// Every sequence the sample stands for.
  package let patterns: [[Atom]]
  /// The slots it names.
  package let slots: Set<String>

  /// The most sequences one sample may stand for.
  package static let maxPatterns = 256

  package init(_ text: String) throws(Failure) {
    self.text = text
    var parser = Parser(characters: Array(text), sample: text)
    let sequence = try parser.sequence(closing: nil)
    var patterns: [[Atom]] = []
    try Self.expand(sequence, into: &patterns, sample: text)
    var seen = Set<[Atom]>()
    patterns = patterns.filter { seen.insert($0).inserted }
    guard !patterns.isEmpty else { throw Failure(sample: text, reason: "it has no words") }
    for pattern in patterns {
      guard pattern.contains(where: { if case .words(_, false) = $0 { return true } else { return false } }) else {
        throw Failure(
          sample: text, reason: "one of its forms is only slots (\(Self.render(pattern))): it would take any sentence")
      }
      var named = Set<String>()
      for case .slot(let name) in pattern where !named.insert(name).inserted {
        throw Failure(sample: text, reason: "slot {\(name)} comes twice in \(Self.render(pattern))")
      }
    }
    self.patterns = patterns
    var slots = Set<String>()
    for pattern in patterns { for case .slot(let name) in pattern { slots.insert(name) } }
    self.slots = slots
  }

  /// A pattern as a sample would write it.
  package static func render(_ pattern: [Atom]) -> String {
    pattern.map {
      switch $0 {
      case .words(let words, let optional):
        let sorted = words.sorted().joined(separator: "|")
        return optional ? "[\(sorted)]" : words.count == 1 ? sorted : "(\(sorted))"
      case .slot(let name): return "{\(name)}"
      }
    }.joined(separator: " ")
  }

  // MARK: Parsing

  indirect enum Element: Equatable {
    case word(String)
    case slot(String)
    /// One of the alternatives; `optional`: or none.
    case choice([[Element]], optional: Bool)
  }

  struct Parser {
    let characters: [Character]
    let sample: String
    var position = 0

    /// Elements up to `closing` (or the end), split at `|` when inside a group: returns the
    /// alternatives (one when there is no `|`).
    mutating func alternatives(closing: Character) throws(Failure) -> [[Element]] {
      var alternatives: [[Element]] = []
      while true {
        let sequence = try self.sequence(closing: closing)
        alternatives.append(sequence)
        guard position < characters.count else {
          throw Failure(sample: sample, reason: "a group is not closed with \(closing)")
        }
        let stop = characters[position]
        position += 1
        if stop == closing { return alternatives }
      }
    }

    /// Elements until `|`, `closing` or the end (not consumed).
    mutating func sequence(closing: Character?) throws(Failure) -> [Element] {
      var elements: [Element] = []
      var word = ""
      func endWord() {
        let words = Utterance(word).words.map(\.text)
        elements += words.map { .word($0) }
        word = ""
      }
      while position < characters.count {
        let character = characters[position]
        switch character {
        case "|" where closing != nil, ")" where closing == ")", "]" where closing == "]":
          endWord()
          return elements
        case "|", ")", "]":
          throw Failure(sample: sample, reason: "\(character) outside a group")
        case "(", "[":
          endWord()
          position += 1
          let closing: Character = character == "(" ? ")" : "]"
          let options = try alternatives(closing: closing)
          if character == "(" && options.contains(where: \.isEmpty) {
            throw Failure(sample: sample, reason: "an alternative in ( ) is empty: write the group in [ ] instead")
          }
          elements.append(.choice(options, optional: character == "["))
          continue
        case "{":
          endWord()
          guard let end = characters[position...].firstIndex(of: "}") else {
            throw Failure(sample: sample, reason: "a slot is not closed with }")
          }
          let name = String(characters[(position + 1)..<end])
          guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
            throw Failure(sample: sample, reason: "{\(name)} is not a slot name")
          }
          elements.append(.slot(name))
          position = end
          position += 1
          continue
        case "}":
          throw Failure(sample: sample, reason: "} without {")
        default:
          word.append(character)
        }
        position += 1
      }
      endWord()
      if closing != nil { throw Failure(sample: sample, reason: "a group is not closed with \(closing!)") }
      return elements
    }
  }

  private static func expand(_ sequence: [Element], into patterns: inout [[Atom]], sample: String) throws(Failure) {
    var partial: [[Atom]] = [[]]
    for element in sequence {
      switch element {
      case .word(let word): partial = partial.map { $0 + [.word(word)] }
      case .slot(let name): partial = partial.map { $0 + [.slot(name)] }
      case .choice(let options, let optional):
        // A group of one-word alternatives is one atom: matched as one of its words, not expanded.
        let single = options.compactMap { option -> String? in
          if option.count == 1, case .word(let word) = option[0] { return word }
          return nil
        }
        if single.count == options.count {
          partial = partial.map { $0 + [.words(Set(single), optional: optional)] }
          break
        }
        var alternatives: [[Atom]] = optional ? [[]] : []
        for option in options { try expand(option, into: &alternatives, sample: sample) }
        partial = partial.flatMap { head in alternatives.map { head + $0 } }
      }
      guard partial.count <= maxPatterns else {
        throw Failure(sample: sample, reason: "it stands for more than \(maxPatterns) sentences: split it")
      }
    }
    patterns += partial
  }
}
