/// Every word the samples use, and every group of one-word alternatives (`(pay|send)`), numbered
/// once when the models are compiled: a sentence's word is then matched against a number, and
/// what it matched is kept in an array, not in a dictionary of strings.
struct Lexicon: Sendable {
  struct Word: Sendable {
    let text: String
    /// Its letters, for the typo distance.
    let letters: FuzzyWord.Letters
  }

  private(set) var words: [Word] = []
  /// Each group's words, by their numbers.
  private(set) var groups: [[Int]] = []
  private var wordNumbers: [String: Int] = [:]
  private var groupNumbers: [Set<String>: Int] = [:]

  /// The number of `words` as one group, numbering it (and its words) when new.
  mutating func group(_ words: Set<String>) -> Int {
    if let known = groupNumbers[words] { return known }
    let members = words.sorted().map { word in
      if let known = wordNumbers[word] { return known }
      self.words.append(Word(text: word, letters: FuzzyWord.Letters(word)))
      wordNumbers[word] = self.words.count - 1
      return self.words.count - 1
    }
    groups.append(members)
    groupNumbers[words] = groups.count - 1
    return groups.count - 1
  }

  /// The number of a word some sample uses, or nil.
  func number(of word: String) -> Int? { wordNumbers[word] }
}
