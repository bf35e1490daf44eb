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
  /// Every intent's patterns compiled against one lexicon, by domain and intent as in `domains`.
  private let compiled: [[[CompiledPattern]]]
  private let lexicon: Lexicon
  private let readerCount: Int
  private let appNames: [AppMention.Names]

  package init(domains: [Domain]) {
    self.domains = domains
    appNames = domains.map(AppMention.Names.init)
    var lexicon = Lexicon()
    var readers = CompiledPattern.Readers()
    compiled = domains.map { domain in
      domain.intents.map { intent in
        intent.patterns.map { CompiledPattern($0, of: intent, lexicon: &lexicon, readers: &readers) }
      }
    }
    self.lexicon = lexicon
    readerCount = readers.numbers.count
  }

  /// The candidates for `text`, best first: at most one per intent of each app. `appName`: only
  /// that app's (or alternative name's) intents.
  package func candidates(_ text: String, appName: String? = nil, context: Context) -> [Match] {
    let utterance = Utterance(text)
    let mention = AppMention.find(in: utterance, names: appNames)
    var apps = Set(mention.apps)
    if let appName, !appName.isEmpty {
      let wanted = appNames.filter { $0.keys.contains(AppMention.key(appName)) }.map(\.appName)
      if !apps.isEmpty { apps.formIntersection(wanted) } else { apps = Set(wanted) }
      if apps.isEmpty { return [] }
    }
    let trimmed = Politeness.trimmed(mention.remaining.map { utterance.words[$0].text })
    let kept = Array(mention.remaining[trimmed])
    let words = kept.map { utterance.words[$0].text }
    let reading = Reading(words: words, context: context, lexicon: lexicon, readers: readerCount)
    var matches: [Match] = []
    for (domainIndex, domain) in domains.enumerated() where apps.isEmpty || apps.contains(domain.appName) {
      for (intentIndex, intent) in domain.intents.enumerated() {
        // The sample that matches best is the one with the highest confidence (a sample that
        // places a slot the sentence does not need must pay for it); within a sample, the way its
        // words are taken with the highest score.
        var best: (scored: Scored, alignment: Alignment, sample: String, confidence: Double)?
        for pattern in compiled[domainIndex][intentIndex] where reading.mayMatch(pattern) {
          var alignment = Alignment(pattern: pattern, reading: reading)
          guard let scored = alignment.best() else { continue }
          let confidence = scored.confidence(pattern: pattern.source)
          if best == nil || confidence > best!.confidence + 1e-9
            || (abs(confidence - best!.confidence) <= 1e-9 && scored.isBetter(than: best!.scored))
          {
            best = (scored, alignment, pattern.source.sample, confidence)
          }
        }
        guard let best, best.confidence >= Self.minimumConfidence else { continue }
        let slots = best.alignment.assignments().map { assignment in
          let indices = Array(kept[assignment.range])
          let range = indices.first!..<(indices.last! + 1)
          let typed = utterance.words[range]
          return SlotValue(
            name: assignment.name, text: utterance.original(range), start: typed.first!.start, end: typed.last!.end,
            value: Self.asTyped(assignment.value, words: indices, in: utterance))
        }
        matches.append(
          Match(
            appName: domain.appName, intentClass: intent.intentClass, confidence: best.confidence,
            sample: best.sample, slots: slots))
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
