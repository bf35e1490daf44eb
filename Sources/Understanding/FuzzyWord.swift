/// Whether a typed word is a sample's word with a slip of the fingers: the same, or — for words of
/// four letters or more — one edit away (a letter added, dropped, changed, or two swapped), two
/// for words of eight or more. Short words must match exactly: "to" is not "go".
package enum FuzzyWord {
  /// 1 for the same word, less for a typo of it, nil for another word.
  package static func match(_ typed: String, _ expected: String) -> Double? {
    if typed == expected { return 1 }
    let allowed = expected.count >= 8 ? 2 : expected.count >= 4 ? 1 : 0
    guard allowed > 0, abs(typed.count - expected.count) <= allowed,
      let distance = distance(Array(typed), Array(expected), limit: allowed)
    else { return nil }
    return distance == 1 ? 0.8 : 0.65
  }

  /// The optimal-string-alignment distance between `a` and `b` (insertions, deletions,
  /// substitutions, adjacent transpositions), or nil when it is more than `limit`.
  package static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int? {
    let n = a.count
    let m = b.count
    guard abs(n - m) <= limit else { return nil }
    var previousPrevious = [Int](repeating: 0, count: m + 1)
    var previous = Array(0...m)
    var current = [Int](repeating: 0, count: m + 1)
    for i in 1...max(n, 1) where n > 0 {
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
    let result = n == 0 ? m : previous[m]
    return result <= limit ? result : nil
  }
}
