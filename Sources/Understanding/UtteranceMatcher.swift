#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif

/// Words to candidate intents: every routed domain's interaction model compiled once, matched
/// deterministically against a sentence. The app a sentence names ("…on UnicornChat", "…with
/// CornChat", "a UnicornPay payment") picks the domain and is taken out; polite words at the ends
/// ("please", "can you") are set aside; then each sample's every form must take the whole rest:
/// its words in order (a typo tolerated in longer words), each slot a run of words its kind can
/// read (an amount, a date, a name, one of an enum's cases…). A sentence no sample takes has no
/// candidate. What the slots cover is given back as typed, with where it stands.
///
/// A candidate's confidence is the share of its sample's fixed words matched exactly (typos count
/// less) and of its typed slots, scaled by how much of it they are: a sample with one fixed word
/// and a free-text slot is a weaker match than one with four.
package struct UtteranceMatcher: Sendable {
  package struct Domain: Sendable {
    package let appName: String
    package let alternativeNames: [String]
    package let intents: [Intent]

    package init(appName: String, alternativeNames: [String], intents: [Intent]) {
      self.appName = appName
      self.alternativeNames = alternativeNames
      self.intents = intents
    }
  }

  package struct Intent: Sendable {
    package let intentClass: String
    package let slots: [String: CompiledSlot]
    let patterns: [Pattern]

    /// The intent's model with its compiled slots; throws for a sample that does not parse or
    /// names a slot the model does not declare.
    package init(model: IntentModel, slots: [String: CompiledSlot]) throws(SampleTemplate.Failure) {
      intentClass = model.intent
      self.slots = slots
      var patterns: [Pattern] = []
      for sample in model.samples {
        let template = try SampleTemplate(sample)
        for name in template.slots where slots[name] == nil {
          throw SampleTemplate.Failure(sample: sample, reason: "{\(name)} is not one of the model's slots")
        }
        patterns += template.patterns.map { Pattern(atoms: $0, sample: sample, slots: slots) }
      }
      self.patterns = patterns
    }
  }

  struct Pattern: Sendable {
    let atoms: [SampleTemplate.Atom]
    let sample: String
    /// The weight of its words, how many of them are content words, its slots and typed slots.
    let literalWeight: Double
    let contentWords: Int
    let slotNames: Set<String>
    let typedSlots: Int
    let typedWeight: Double

    init(atoms: [SampleTemplate.Atom], sample: String, slots: [String: CompiledSlot]) {
      self.atoms = atoms
      self.sample = sample
      var weight = 0.0
      var content = 0
      var names = Set<String>()
      var typed = 0
      var typedWeight = 0.0
      for atom in atoms {
        switch atom {
        case .words(let words, let optional):
          guard !optional else { continue }
          let atomWeight = Weights.of(words)
          weight += atomWeight
          if atomWeight == 1 { content += 1 }
        case .slot(let name):
          names.insert(name)
          if let kind = slots[name]?.kind, kind.isSelfDelimiting {
            typed += 1
            typedWeight += kind.typedWeight
          }
        }
      }
      literalWeight = weight
      contentWords = content
      slotNames = names
      typedSlots = typed
      self.typedWeight = typedWeight
    }
  }

  /// When and where the sentence is said: dates are read against it, bare amounts in its currency.
  package struct Context: Sendable {
    package var now: Date
    package var timeZone: TimeZone
    package var locale: String

    package init(now: Date, timeZone: TimeZone, locale: String) {
      self.now = now
      self.timeZone = timeZone
      self.locale = locale
    }
  }

  /// What a slot's words say.
  package enum Value: Sendable, Equatable {
    case text(String)
    /// One or more names (an array parameter's, split at "and").
    case people([String])
    /// Several texts (an array parameter's: "milk and eggs" are two tasks).
    case texts([String])
    case money(SpokenAmount)
    case date(SpokenDate)
    case number(Double)
    /// An enum case's name or a vocabulary item's identifier, and the phrase that named it.
    case choice(String, phrase: String)
  }

  package struct SlotValue: Sendable, Equatable {
    package let name: String
    /// The words it covers, as typed, and where they stand in the sentence (in characters).
    package let text: String
    package let start: Int
    package let end: Int
    package let value: Value
  }

  package struct Match: Sendable {
    package let appName: String
    package let intentClass: String
    package let confidence: Double
    /// The sample it matched.
    package let sample: String
    package let slots: [SlotValue]
  }

  package let domains: [Domain]
  /// Candidates below this confidence are not given.
  package static let minimumConfidence = 0.5

  package init(domains: [Domain]) {
    self.domains = domains
  }

  /// The candidates for `text`, best first: at most one per intent of each app. `appName`: only
  /// that app's (or alternative name's) intents.
  package func candidates(_ text: String, appName: String? = nil, context: Context) -> [Match] {
    let utterance = Utterance(text)
    let mention = AppMention.find(in: utterance, domains: domains)
    var apps = Set(mention.apps)
    if let appName, !appName.isEmpty {
      let wanted = domains.filter { AppMention.names(of: $0).contains(AppMention.key(appName)) }.map(\.appName)
      if !apps.isEmpty { apps.formIntersection(wanted) } else { apps = Set(wanted) }
      if apps.isEmpty { return [] }
    }
    let trimmed = Politeness.trimmed(mention.remaining.map { utterance.words[$0].text })
    let kept = Array(mention.remaining[trimmed])
    let words = kept.map { utterance.words[$0].text }
    let reading = Reading(words: words, context: context)
    var matches: [Match] = []
    for domain in domains where apps.isEmpty || apps.contains(domain.appName) {
      for intent in domain.intents {
        // The sample that matches best is the one with the highest confidence (a sample that
        // places a slot the sentence does not need must pay for it); within a sample, the way its
        // words are taken with the highest score.
        var best: (Scored, Pattern, Double)?
        for pattern in intent.patterns where reading.mayMatch(pattern) {
          var alignment = Alignment(pattern: pattern, intent: intent, reading: reading)
          guard let scored = alignment.best() else { continue }
          let confidence = scored.confidence(pattern: pattern)
          if best == nil || confidence > best!.2 + 1e-9
            || (abs(confidence - best!.2) <= 1e-9 && scored.isBetter(than: best!.0))
          {
            best = (scored, pattern, confidence)
          }
        }
        guard let (scored, pattern, confidence) = best else { continue }
        guard confidence >= Self.minimumConfidence else { continue }
        let slots = scored.assignments.map { assignment in
          let indices = Array(kept[assignment.range])
          let range = indices.first!..<(indices.last! + 1)
          let typed = utterance.words[range]
          return SlotValue(
            name: assignment.name, text: utterance.original(range), start: typed.first!.start, end: typed.last!.end,
            value: Self.asTyped(assignment.value, words: indices, in: utterance))
        }
        matches.append(
          Match(
            appName: domain.appName, intentClass: intent.intentClass, confidence: confidence, sample: pattern.sample,
            slots: slots))
      }
    }
    return matches.sorted { ($0.confidence, $1.appName) > ($1.confidence, $0.appName) }
  }

  /// Words as the user typed them (their case, what lies between them): a name is "Sparkle
  /// Sparkly", not "sparkle sparkly". `words`: the slot's words' indices in the sentence.
  private static func asTyped(_ value: Value, words: [Int], in utterance: Utterance) -> Value {
    func original(_ indices: ArraySlice<Int>) -> String {
      guard let first = indices.first, let last = indices.last else { return "" }
      return utterance.original(first..<(last + 1))
    }
    switch value {
    case .text: return .text(original(words[...]))
    case .people, .texts:
      // The same parts the reader split the words into, at "and" and "&".
      var parts: [ArraySlice<Int>] = []
      var start = 0
      for (position, index) in words.enumerated() where ["and", "&"].contains(utterance.words[index].text) {
        parts.append(words[start..<position])
        start = position + 1
      }
      parts.append(words[start...])
      let typed = parts.map(original)
      if case .people = value { return .people(typed) }
      return .texts(typed)
    case .choice(let name, _): return .choice(name, phrase: original(words[...]))
    case .money, .date, .number: return value
    }
  }
}

/// How well a pattern took a sentence.
struct Scored {
  struct Assignment {
    let name: String
    /// Indices into the matched words.
    let range: Range<Int>
    let value: UtteranceMatcher.Value
  }

  /// The weight of the sample's words matched (less for a typo), less what was left out or added.
  var literalScore: Double = 0
  /// Typed slots matched (the sample's own, and ones the sentence adds).
  var typedSlots = 0
  /// What the typed slots matched are worth: a date, an amount or a number 1, an enum case or a
  /// vocabulary item less (a word of the sentence that names one may as well be part of a name).
  var typedScore = 0.0
  /// Typed slots the sentence adds that the sample does not place ("… tomorrow").
  var floatingSlots = 0
  /// Words taken by free slots (text, names, places).
  var freeWords = 0
  /// Content words of the sample matched.
  var contentMatched = 0
  /// The weight of optional words matched (they count toward what could have been only when said).
  var optionalWeight = 0.0
  var assignments: [Assignment] = []

  var total: Double { literalScore + typedScore }

  func isBetter(than other: Scored) -> Bool {
    if abs(total - other.total) > 1e-9 { return total > other.total }
    return freeWords < other.freeWords
  }

  /// The share matched of what could have been, scaled by how much of the sample is fixed or
  /// typed: a sample with one fixed word and a free-text slot is a weaker match than one with four.
  func confidence(pattern: UtteranceMatcher.Pattern) -> Double {
    guard contentMatched > 0 || pattern.contentWords == 0 else { return 0 }
    let possible = pattern.literalWeight + optionalWeight + pattern.typedWeight + Double(floatingSlots)
    guard possible > 0 else { return 0 }
    let quality = max(0, total) / possible
    var unanchored = 1.0
    for _ in 0..<(contentMatched + typedSlots) { unanchored /= 2 }
    return min(1, quality) * (1 - unanchored)
  }
}

/// One pattern against the sentence's words: the best way its atoms take all the words. A word of
/// the sample may be left out, and a word the sample does not have may be said, each at a cost
/// (small for the little words — "a", "the", "my" —, large for the others); a typed slot of the
/// intent that the sample does not place (a date, an amount, a number) may be said anywhere, as
/// people add "tomorrow" or "for 3 people" where they like.
struct Alignment {
  let pattern: UtteranceMatcher.Pattern
  let intent: UtteranceMatcher.Intent
  let reading: Reading
  var words: [String] { reading.words }
  /// The intent's typed slots the pattern does not place.
  private let floating: [(name: String, slot: CompiledSlot)]
  private var memo: [Key: Scored?] = [:]

  struct Key: Hashable {
    let atom: Int
    let word: Int
    let used: UInt8
  }

  /// What leaving out a word of the sample, or saying one it does not have, costs.
  static let contentPenalty = 0.5
  static let addedContentPenalty = 0.75
  static let littlePenalty = 0.1

  init(pattern: UtteranceMatcher.Pattern, intent: UtteranceMatcher.Intent, reading: Reading) {
    self.pattern = pattern
    self.intent = intent
    self.reading = reading
    floating = intent.slots.sorted { $0.key < $1.key }.filter { name, slot in
      slot.kind.isFloating && !pattern.slotNames.contains(name)
    }.prefix(8).map { ($0.key, $0.value) }
  }

  mutating func best() -> Scored? {
    guard !words.isEmpty else { return nil }
    return best(atom: 0, word: 0, used: 0)
  }

  private mutating func best(atom: Int, word: Int, used: UInt8) -> Scored? {
    if atom == pattern.atoms.count && word == words.count { return Scored() }
    let key = Key(atom: atom, word: word, used: used)
    if let known = memo[key] { return known }
    var result: Scored?
    func consider(_ candidate: Scored?) {
      guard let candidate else { return }
      if result == nil || candidate.isBetter(than: result!) { result = candidate }
    }
    if atom < pattern.atoms.count {
      switch pattern.atoms[atom] {
      case .words(let expected, let optional):
        let weight = Weights.of(expected)
        if word < words.count, let quality = reading.match(word, expected),
          var rest = best(atom: atom + 1, word: word + 1, used: used)
        {
          rest.literalScore += weight * quality
          if optional { rest.optionalWeight += weight }
          if weight == 1 && !optional { rest.contentMatched += 1 }
          consider(rest)
        }
        // The word left out (free for an optional one).
        if var rest = best(atom: atom + 1, word: word, used: used) {
          if !optional { rest.literalScore -= weight == 1 ? Self.contentPenalty : Self.littlePenalty }
          consider(rest)
        }
      case .slot(let name):
        guard let slot = intent.slots[name], word < words.count else { break }
        let longest = min(SlotReader.maximumWords(slot.kind), words.count - word)
        for length in 1...max(longest, 1) where length <= longest {
          let span = word..<(word + length)
          guard let value = reading.read(span, slot: slot, intent: intent.intentClass, name: name),
            var rest = best(atom: atom + 1, word: word + length, used: used)
          else { continue }
          if slot.kind.isSelfDelimiting {
            rest.typedSlots += 1
            rest.typedScore += slot.kind.typedWeight
          } else {
            rest.freeWords += length
          }
          rest.assignments.insert(Scored.Assignment(name: name, range: span, value: value), at: 0)
          consider(rest)
        }
      }
    }
    if word < words.count {
      // A word the sample does not have.
      if var rest = best(atom: atom, word: word + 1, used: used) {
        rest.literalScore -= Weights.of(words[word]) == 1 ? Self.addedContentPenalty : Self.littlePenalty
        consider(rest)
      }
      // A typed slot the sample does not place: a date with the little word that leads it ("on
      // Friday"), an amount, or a number after "for" ("for 3 people"; a number alone is as likely
      // part of an address).
      for (index, (name, slot)) in floating.enumerated() where used & (1 << index) == 0 {
        let leading = Weights.isLeading(words[word])
        if slot.kind == .number && words[word] != "for" { continue }
        let start = leading ? word + 1 : word
        guard start < words.count else { continue }
        let longest = min(SlotReader.maximumWords(slot.kind), words.count - start)
        for length in 1...max(longest, 1) where length <= longest {
          let span = start..<(start + length)
          guard let value = reading.read(span, slot: slot, intent: intent.intentClass, name: name),
            var rest = best(atom: atom, word: start + length, used: used | (1 << index))
          else { continue }
          rest.typedSlots += 1
          rest.typedScore += slot.kind.typedWeight
          rest.floatingSlots += 1
          rest.assignments.insert(Scored.Assignment(name: name, range: span, value: value), at: 0)
          consider(rest)
        }
      }
    }
    memo[key] = result
    return result
  }
}

/// How much a word of a sample counts: the little words people vary freely count a quarter.
enum Weights {
  static let little: Set<String> = [
    "a", "an", "the", "my", "me", "to", "for", "of", "on", "in", "at", "with", "from", "and", "is", "are", "i",
    "you", "your", "it", "this", "that", "some", "any", "please", "can", "could", "would", "will", "do", "does",
    "did", "be", "am", "was", "what", "what's", "how", "new", "all", "up", "into", "about", "as", "there", "have",
    "by", "her", "him", "them", "us", ":", "just", "now", "again",
  ]
  /// Little words that lead a date, an amount or a number ("on Friday", "for 3", "at 9").
  static let leading: Set<String> = [
    "on", "at", "for", "by", "in", "of", "from", "until", "around", "about", "due", "scheduled", "starting",
  ]

  static func of(_ word: String) -> Double { little.contains(word) ? 0.25 : 1 }
  /// A group of alternatives weighs what its heaviest word does.
  static func of(_ words: Set<String>) -> Double { words.contains { !little.contains($0) } ? 1 : 0.25 }
  static func isLeading(_ word: String) -> Bool { leading.contains(word) }
}

/// One sentence's words as every pattern reads them, with what reading them costs done once: a
/// word against a sample's word, and a run of words as a slot's kind (an amount, a date…).
final class Reading {
  let words: [String]
  let context: UtteranceMatcher.Context
  private var matches: [WordPair: Double?] = [:]
  private var values: [SlotSpan: UtteranceMatcher.Value?] = [:]

  struct WordPair: Hashable {
    let word: Int
    let expected: String
  }

  struct SlotSpan: Hashable {
    /// The kind's reader, and for enum and vocabulary slots which one's phrases.
    let reader: String
    let start: Int
    let end: Int
  }

  init(words: [String], context: UtteranceMatcher.Context) {
    self.words = words
    self.context = context
  }

  func match(_ word: Int, _ expected: Set<String>) -> Double? {
    var best: Double?
    for candidate in expected {
      let key = WordPair(word: word, expected: candidate)
      let quality: Double?
      if let known = matches[key] {
        quality = known
      } else {
        quality = FuzzyWord.match(words[word], candidate)
        matches[key] = quality
      }
      if let quality, quality > (best ?? 0) { best = quality }
    }
    return best
  }

  func read(_ span: Range<Int>, slot: CompiledSlot, intent: String, name: String) -> UtteranceMatcher.Value? {
    let reader: String
    switch slot.kind {
    case .enum, .vocabulary: reader = "\(intent).\(name)"
    default: reader = "\(slot.kind.rawValue)\(slot.isArray ? "[]" : "")"
    }
    let key = SlotSpan(reader: reader, start: span.lowerBound, end: span.upperBound)
    if let known = values[key] { return known }
    let value = SlotReader.read(Array(words[span]), slot: slot, context: context)
    values[key] = value
    return value
  }

  /// Whether `pattern` can take this sentence at all: at least half of its required content words
  /// are said (or it has none).
  func mayMatch(_ pattern: UtteranceMatcher.Pattern) -> Bool {
    guard pattern.contentWords > 0 else { return true }
    var found = 0
    for case .words(let expected, false) in pattern.atoms where Weights.of(expected) == 1 {
      if words.indices.contains(where: { match($0, expected) != nil }) { found += 1 }
    }
    return found * 2 >= pattern.contentWords && found > 0
  }
}
