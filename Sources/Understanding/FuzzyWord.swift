/// Whether a typed word is a sample's word with a slip of the fingers: the same, or — for words of
/// four letters or more — one edit away (a letter added, dropped, changed, or two swapped), two
/// for words of eight or more. Short words must match exactly: "to" is not "go".
package enum FuzzyWord {
  /// 1 for the same word, less for a typo of it, nil for another word.
  package static func match(_ typed: String, _ expected: String) -> Double? {
    if typed == expected { return 1 }
    // Most words are no typo of each other by their lengths alone: known without their letters.
    let expectedCount = expected.count
    let allowed = allowance(expectedCount)
    guard allowed > 0, abs(typed.count - expectedCount) <= allowed else { return nil }
    return typo(Letters(typed), of: Letters(expected))
  }

  /// A word's letters as the distance compares them: its bytes when it is all ASCII (one byte a
  /// letter), its characters otherwise.
  struct Letters: Sendable {
    let ascii: [UInt8]?
    let characters: [Character]

    init(_ word: String) {
      characters = Array(word)
      ascii = word.utf8.allSatisfy { $0 < 0x80 } ? Array(word.utf8) : nil
    }
  }

  /// How many edits a typo of a word of `length` letters may have.
  private static func allowance(_ length: Int) -> Int {
    length >= 8 ? 2 : length >= 4 ? 1 : 0
  }

  /// How good a typo of `expected` `typed` is (0.8 one edit away, 0.65 two), or nil: the words
  /// already known to differ, as letters (the matcher keeps them so, not to split them again).
  static func typo(_ typed: Letters, of expected: Letters) -> Double? {
    let allowed = allowance(expected.characters.count)
    guard allowed > 0, abs(typed.characters.count - expected.characters.count) <= allowed else { return nil }
    let found =
      if let a = typed.ascii, let b = expected.ascii {
        distance(a, b, limit: allowed)
      } else {
        distance(typed.characters, expected.characters, limit: allowed)
      }
    guard let found else { return nil }
    return found == 1 ? 0.8 : 0.65
  }

  /// The optimal-string-alignment distance between `a` and `b` (insertions, deletions,
  /// substitutions, adjacent transpositions), or nil when it is more than `limit`.
  package static func distance<Letter: Equatable>(_ a: [Letter], _ b: [Letter], limit: Int) -> Int? {
    let n = a.count
    let m = b.count
    guard abs(n - m) <= limit else { return nil }
    guard n > 0 else { return m <= limit ? m : nil }
    // Three rows of the table, on the stack.
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: 3 * (m + 1)) { table in
      var previousPrevious = table.baseAddress!
      var previous = previousPrevious + (m + 1)
      var current = previous + (m + 1)
      for j in 0...m {
        previousPrevious[j] = 0
        previous[j] = j
        current[j] = 0
      }
      for i in 1...n {
        current[0] = i
        var rowMinimum = current[0]
        for j in 1...max(m, 1) where m > 0 {
          let cost = a[i - 1] == b[j - 1] ? 0 : 1
          var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
          if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
            value = min(value, previousPrevious[j - 2] + 1)
          }
          current[j] = value
          rowMinimum = min(rowMinimum, value)
        }
        if rowMinimum > limit { return nil }
        (previousPrevious, previous, current) = (previous, current, previousPrevious)
      }
      return previous[m] <= limit ? previous[m] : nil
    }
  }
}
