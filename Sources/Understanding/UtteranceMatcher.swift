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
        patterns += template.patterns.map { Pattern(atoms: $0, sample: sample) }
      }
      self.patterns = patterns
    }
  }

  struct Pattern: Sendable {
    let atoms: [SampleTemplate.Atom]
    let sample: String
    var literals: Int { atoms.count { if case .word = $0 { true } else { false } } }
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
  package static let minimumConfidence = 0.45

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
    var matches: [Match] = []
    for domain in domains where apps.isEmpty || apps.contains(domain.appName) {
      for intent in domain.intents {
        var best: (Scored, Pattern)?
        for pattern in intent.patterns {
          var alignment = Alignment(pattern: pattern, intent: intent, words: words, context: context)
          guard let scored = alignment.best() else { continue }
          if best == nil || scored.isBetter(than: best!.0) { best = (scored, pattern) }
        }
        guard let (scored, pattern) = best else { continue }
        let confidence = scored.confidence(literals: pattern.literals)
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

  var literalQuality: Double = 0
  var typedSlots = 0
  var freeWords = 0
  var assignments: [Assignment] = []

  var total: Double { literalQuality + Double(typedSlots) }

  func isBetter(than other: Scored) -> Bool {
    if abs(total - other.total) > 1e-9 { return total > other.total }
    return freeWords < other.freeWords
  }

  /// The share matched, scaled by how much of the sample is fixed or typed.
  func confidence(literals: Int) -> Double {
    let anchors = literals + typedSlots
    guard anchors > 0 else { return 0 }
    let quality = total / Double(anchors)
    var unanchored = 1.0
    for _ in 0..<anchors { unanchored /= 2 }
    return quality * (1 - unanchored)
  }
}

/// One pattern against the sentence's words: the best way its atoms take all the words.
struct Alignment {
  let pattern: UtteranceMatcher.Pattern
  let intent: UtteranceMatcher.Intent
  let words: [String]
  let context: UtteranceMatcher.Context
  /// Best of atoms[a...] over words[w...], by a * (words + 1) + w; nil inside: no way.
  private var memo: [Int: Scored?] = [:]

  init(
    pattern: UtteranceMatcher.Pattern, intent: UtteranceMatcher.Intent, words: [String],
    context: UtteranceMatcher.Context
  ) {
    self.pattern = pattern
    self.intent = intent
    self.words = words
    self.context = context
  }

  mutating func best() -> Scored? {
    guard !words.isEmpty, pattern.literals <= words.count else { return nil }
    return best(atom: 0, word: 0)
  }

  private mutating func best(atom: Int, word: Int) -> Scored? {
    if atom == pattern.atoms.count { return word == words.count ? Scored() : nil }
    guard word < words.count else { return nil }
    let key = atom * (words.count + 1) + word
    if let known = memo[key] { return known }
    var result: Scored?
    switch pattern.atoms[atom] {
    case .word(let expected):
      if let quality = FuzzyWord.match(words[word], expected), var rest = best(atom: atom + 1, word: word + 1) {
        rest.literalQuality += quality
        result = rest
      }
    case .slot(let name):
      guard let slot = intent.slots[name] else { break }
      // The words after this slot must still hold the pattern's remaining fixed words.
      let remainingLiterals = pattern.atoms[(atom + 1)...].count { if case .word = $0 { true } else { false } }
      let longest = min(SlotReader.maximumWords(slot.kind), words.count - word - remainingLiterals)
      if longest >= 1 {
        for length in 1...longest {
          let span = word..<(word + length)
          guard let value = SlotReader.read(Array(words[span]), slot: slot, context: context),
            var rest = best(atom: atom + 1, word: word + length)
          else { continue }
          if slot.kind.isSelfDelimiting { rest.typedSlots += 1 } else { rest.freeWords += length }
          rest.assignments.insert(Scored.Assignment(name: name, range: span, value: value), at: 0)
          if result == nil || rest.isBetter(than: result!) { result = rest }
        }
      }
    }
    memo[key] = result
    return result
  }
}
