/// Reads a slot's words as its kind says, or refuses them: an amount must be all amount, a name a
/// few words that are no function words, an enum slot one of its phrases.
enum SlotReader {
  /// The most words a slot of `kind` may cover.
  static func maximumWords(_ kind: SlotKind) -> Int {
    switch kind {
    case .person: 8
    case .money: 8
    case .date: 10
    case .place: 10
    case .text: 200
    case .vocabulary, .enum: 5
    case .number: 6
    }
  }

  /// Words that do not make up a name (or a place on their own): a span of them is another part
  /// of the sentence ("tell me a joke" does not send "me" "a joke").
  static let notInNames: Set<String> = [
    "a", "an", "the", "me", "my", "i", "you", "your", "it", "its", "this", "that", "these", "those", "what",
    "which", "who", "how", "why", "when", "where", "is", "are", "was", "be", "to", "for", "of", "on", "in", "at",
    "by", "from", "about", "with", "please", "some", "any", "all", "up", "out", "now", "here", "there", "us",
    "them", "him", "her", "our", "their", "do", "does", "did", "can", "could", "would", "should", "will",
    "joke", "weather", "time", "news", "music", "song", "timer", "alarm", "lights", "light",
  ]

  /// Whether `read` gives a value for `words`, without building it where that is known beforehand
  /// (free text takes any words).
  static func accepts(_ words: ArraySlice<String>, slot: CompiledSlot, context: UtteranceMatcher.Context) -> Bool {
    if slot.kind == .text && !slot.isArray { return !words.isEmpty }
    return read(Array(words), slot: slot, context: context) != nil
  }

  static func read(_ words: [String], slot: CompiledSlot, context: UtteranceMatcher.Context) -> UtteranceMatcher.Value?
  {
    switch slot.kind {
    case .text:
      guard slot.isArray else { return .text(words.joined(separator: " ")) }
      let parts = split(words)
      guard parts.allSatisfy({ !$0.isEmpty }) else { return nil }
      return .texts(parts.map { $0.joined(separator: " ") })
    case .person:
      let names = slot.isArray ? split(words) : [words]
      guard !names.isEmpty, names.allSatisfy(isName) else { return nil }
      return .people(names.map { $0.joined(separator: " ") })
    case .place:
      // A place is no time ("9 am") and no number; an address may start with one ("300 Post Street").
      guard words.contains(where: { !notInNames.contains($0) }), words.count <= maximumWords(.place),
        words.first != "me", SpokenNumber.value(words) == nil,
        SpokenDate.parse(words, now: context.now, timeZone: context.timeZone) == nil
      else { return nil }
      return .text(words.joined(separator: " "))
    case .money:
      return SpokenAmount.parse(words, bareCurrency: SpokenAmount.defaultCurrency(locale: context.locale)).map {
        .money($0)
      }
    case .date:
      return SpokenDate.parse(words, now: context.now, timeZone: context.timeZone).map { .date($0) }
    case .number:
      return SpokenNumber.value(words).map { .number($0) }
    case .enum, .vocabulary:
      var best: (CompiledSlot.Choice, Double)?
      for choice in slot.choices where choice.words.count == words.count {
        var quality = 1.0
        for (typed, expected) in zip(words, choice.words) {
          guard let match = FuzzyWord.match(typed, expected) else {
            quality = 0
            break
          }
          quality *= match
        }
        if quality > 0, best == nil || quality > best!.1 { best = (choice, quality) }
      }
      return best.map { .choice($0.0.value, phrase: words.joined(separator: " ")) }
    }
  }

  /// Names or items joined by "and" or "&" (commas are gone by now: "Scott Diana and Kate" is two
  /// names, "Scott Diana" and "Kate").
  static func split(_ words: [String]) -> [[String]] {
    var names: [[String]] = [[]]
    for word in words {
      if word == "and" || word == "&" {
        names.append([])
      } else {
        names[names.count - 1].append(word)
      }
    }
    return names
  }

  static func isName(_ words: [String]) -> Bool {
    guard !words.isEmpty, words.count <= 4 else { return false }
    if words.count == 1, SpokenNumber.value(words) != nil { return false }
    return words.allSatisfy { !notInNames.contains($0) && $0.first?.isNumber != true }
  }
}
