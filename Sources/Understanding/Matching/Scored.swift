/// How well a pattern took a sentence.
struct Scored {
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
