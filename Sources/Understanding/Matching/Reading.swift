/// One sentence's words as every pattern reads them, with what reading them costs done once and
/// kept in arrays: a word against a word of the lexicon (the same, a typo of it, or not), a word
/// against a group of alternatives, whether a group is said anywhere, and whether a run of words
/// is one a slot's reader takes (an amount, a date, a name…).
final class Reading {
  let words: [String]
  let context: UtteranceMatcher.Context
  /// Whether each word is a content word (not one of the little words people vary freely).
  let isContent: [Bool]
  /// Whether each word is one that leads a date, an amount or a number ("on", "for"…), and "for".
  let isLeading: [Bool]
  let isFor: [Bool]

  private let lexicon: Lexicon
  /// Each word's number in the lexicon when a sample uses it, else -1.
  private let numbers: [Int]
  private let letters: [FuzzyWord.Letters]
  /// By (lexicon word or group) × sentence word, a `Quality` code: 0 not known yet.
  private var wordQuality: [UInt8]
  private var groupQuality: [UInt8]
  /// By group: 0 not known yet, 1 said nowhere, 2 said somewhere.
  private var groupSaid: [UInt8]
  /// By reader: its answers by span (start × (the reader's longest + 1) + length): 0 not known
  /// yet, 1 no, 2 yes.
  private var accepted: [[UInt8]]
  /// For numbers, amounts and dates: how many of the first n words may not be part of one (a span
  /// with such a word is none, without reading it).
  private let notNumber: [Int]
  private let notAmount: [Int]
  private let notDate: [Int]

  init(words: [String], context: UtteranceMatcher.Context, lexicon: Lexicon, readers: Int) {
    self.words = words
    self.context = context
    self.lexicon = lexicon
    isContent = words.map { Weights.of($0) == 1 }
    isLeading = words.map(Weights.isLeading)
    isFor = words.map { $0 == "for" }
    numbers = words.map { lexicon.number(of: $0) ?? -1 }
    letters = words.map(FuzzyWord.Letters.init)
    wordQuality = Array(repeating: 0, count: lexicon.words.count * words.count)
    groupQuality = Array(repeating: 0, count: lexicon.groups.count * words.count)
    groupSaid = Array(repeating: 0, count: lexicon.groups.count)
    accepted = Array(repeating: [], count: readers)
    func counts(_ mayBePart: (String) -> Bool) -> [Int] {
      var counts = [0]
      counts.reserveCapacity(words.count + 1)
      for word in words { counts.append(counts.last! + (mayBePart(word) ? 0 : 1)) }
      return counts
    }
    notNumber = counts(SpokenNumber.mayBePart)
    notAmount = counts(SpokenAmount.mayBePart)
    notDate = counts(SpokenDate.mayBePart)
  }

  var count: Int { words.count }

  /// How well the sentence's `word` matches one of `group`'s words (the best of them), or nil.
  func match(_ word: Int, group: Int) -> Double? {
    let index = group * words.count + word
    if groupQuality[index] == 0 {
      var best = Quality.none
      for member in lexicon.groups[group] {
        let quality = match(word, lexiconWord: member)
        if quality.value > best.value { best = quality }
      }
      groupQuality[index] = best.rawValue
    }
    let quality = Quality(rawValue: groupQuality[index])!
    return quality == .none ? nil : quality.value
  }

  private func match(_ word: Int, lexiconWord: Int) -> Quality {
    if numbers[word] == lexiconWord { return .same }
    let index = lexiconWord * words.count + word
    if wordQuality[index] == 0 {
      // Another word than the lexicon's (the same one would have its number): a typo at best.
      let typo = FuzzyWord.typo(letters[word], of: lexicon.words[lexiconWord].letters)
      wordQuality[index] = Quality(typo).rawValue
    }
    return Quality(rawValue: wordQuality[index])!
  }

  /// What a word's match is worth, kept in a byte (a typo is one or two edits away).
  private enum Quality: UInt8 {
    case none = 1
    case same, oneEdit, twoEdits

    init(_ value: Double?) {
      switch value {
      case nil: self = .none
      case 1: self = .same
      case 0.8: self = .oneEdit
      default: self = .twoEdits
      }
    }

    var value: Double {
      switch self {
      case .none: 0
      case .same: 1
      case .oneEdit: 0.8
      case .twoEdits: 0.65
      }
    }
  }

  /// Whether any word of the sentence matches `group`.
  func says(group: Int) -> Bool {
    if groupSaid[group] == 0 {
      groupSaid[group] = words.indices.contains { match($0, group: group) != nil } ? 2 : 1
    }
    return groupSaid[group] == 2
  }

  /// Whether `slot`'s reader takes the words in `span` (no more than its longest).
  func accepts(_ span: Range<Int>, slot: CompiledPattern.Slot) -> Bool {
    let outsiders: [Int]?
    switch slot.slot.kind {
    case .number: outsiders = notNumber
    case .money: outsiders = notAmount
    case .date: outsiders = notDate
    default: outsiders = nil
    }
    if let outsiders, outsiders[span.upperBound] > outsiders[span.lowerBound] { return false }
    let stride = slot.longest + 1
    if accepted[slot.reader].isEmpty {
      accepted[slot.reader] = Array(repeating: 0, count: words.count * stride)
    }
    let index = span.lowerBound * stride + span.count
    if accepted[slot.reader][index] == 0 {
      accepted[slot.reader][index] = SlotReader.accepts(words[span], slot: slot.slot, context: context) ? 2 : 1
    }
    return accepted[slot.reader][index] == 2
  }

  /// What `slot`'s words in `span` say (one its reader takes).
  func value(_ span: Range<Int>, slot: CompiledPattern.Slot) -> UtteranceMatcher.Value? {
    SlotReader.read(Array(words[span]), slot: slot.slot, context: context)
  }

  /// Whether `pattern` can take this sentence at all: at least half of its required content words
  /// are said (or it has none).
  func mayMatch(_ pattern: CompiledPattern) -> Bool {
    guard !pattern.contentGroups.isEmpty else { return true }
    let found = pattern.contentGroups.count { says(group: $0) }
    return found * 2 >= pattern.contentGroups.count && found > 0
  }
}
