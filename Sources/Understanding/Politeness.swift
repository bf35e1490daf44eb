/// The words people put around a request that ask nothing of it: "please", "can you", "hey Siri",
/// "I want to", "thanks". Taken off the ends of a sentence before it is matched.
enum Politeness {
  static let openings: [[String]] = [
    ["hey", "siri"], ["siri"], ["hey"], ["ok"], ["okay"], ["please"], ["can", "you"], ["could", "you"],
    ["would", "you"], ["will", "you"], ["can", "i"], ["could", "i"], ["i", "want", "to"], ["i'd", "like", "to"],
    ["i", "would", "like", "to"], ["i", "need", "to"], ["go", "ahead", "and"], ["just"], ["let's"], ["quickly"],
    // What is left of "ask UnicornRides to …" and "use UnicornPay to …" once the app is taken out.
    ["ask", "to"], ["use", "to"], ["to"], ["and"],
  ]
  static let closings: [[String]] = [
    ["please"], ["thanks"], ["thank", "you"], ["for", "me"], ["right", "now"], ["asap"],
  ]

  /// The range of `words` without polite openings and closings (any number of each).
  static func trimmed(_ words: [String]) -> Range<Int> {
    var start = 0
    var end = words.count
    var changed = true
    while changed {
      changed = false
      for opening in openings
      where end - start > opening.count && Array(words[start..<(start + opening.count)]) == opening {
        start += opening.count
        changed = true
      }
      for closing in closings where end - start > closing.count && Array(words[(end - closing.count)..<end]) == closing
      {
        end -= closing.count
        changed = true
      }
    }
    return start..<end
  }
}
