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
