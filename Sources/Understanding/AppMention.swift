/// An app named in a sentence ("…on UnicornChat", "…with CornChat", "in the UnicornPay app", "a
/// UnicornChat message"): which app, and the sentence's words without the name and the little
/// words that attached it. Names are compared without case or spaces ("Unicorn Chat" is
/// "UnicornChat"), a possessive 's aside, with a typo tolerated.
enum AppMention {
  struct Found {
    /// The apps named, in the order they were.
    var apps: [String]
    /// Indices of the sentence's words that remain.
    var remaining: [Int]
  }

  /// Words that attach an app's name to the sentence; taken out with it.
  static let connectors: Set<String> = [
    "on", "in", "with", "using", "via", "through", "from", "into", "at", "use", "ask", "open",
  ]

  /// A name as compared: lowercase, without spaces or a possessive.
  static func key(_ name: String) -> String {
    var key = name.lowercased().filter { !$0.isWhitespace && $0 != "-" }
    if key.hasSuffix("'s") { key.removeLast(2) }
    return key
  }

  /// Whether words (`typed`, joined as `key` joins them) name the app named `name`: exactly, or —
  /// one word typed for a name of eight letters or more — with one slip ("UnicornChatt"). A
  /// shorter name, or one spread over words, must be exact: "bicorn ride" is not "UnicornRide",
  /// "unicorns" not "Unicorn".
  static func isName(_ typed: String, _ name: String, words: Int) -> Bool {
    if typed == name { return true }
    guard words == 1, name.count >= 8, abs(typed.count - name.count) <= 1 else { return false }
    return FuzzyWord.distance(Array(typed), Array(name), limit: 1) != nil
  }

  /// An app and the names it goes by, as compared.
  struct Names: Sendable {
    let appName: String
    let keys: Set<String>

    init(_ domain: UtteranceMatcher.Domain) {
      appName = domain.appName
      keys = Set(([domain.appName] + domain.alternativeNames).map(AppMention.key))
    }
  }

  static func find(in utterance: Utterance, names: [Names]) -> Found {
    let words = utterance.words.map(\.text)
    var remaining = Array(words.indices)
    var apps: [String] = []
    var index = 0
    while index < remaining.count {
      var found: (app: String, length: Int)?
      // The longest window of words that is a name (at most three words: "Unicorn Chat app").
      for length in stride(from: min(3, remaining.count - index), through: 1, by: -1) {
        let window = remaining[index..<(index + length)].map { words[$0] }
        let joined = key(window.joined())
        guard joined.count >= 4 else { continue }
        if let app = names.first(where: { app in app.keys.contains { Self.isName(joined, $0, words: length) } }) {
          found = (app.appName, length)
          break
        }
      }
      // A short or several-word name ("Unicorn", "Unicorn Ride") is the app only where the
      // sentence attaches it ("… on Unicorn", "… in the Unicorn Ride app"): elsewhere it is a word
      // of the sentence ("a unicorn ride to the park"). A long one-word name is the app anywhere.
      if let (_, length) = found {
        let joined = key(remaining[index..<(index + length)].map { words[$0] }.joined())
        let distinctive = length == 1 && joined.count >= 8
        let before = index > 0 ? words[remaining[index - 1]] : ""
        let beforeThe = index > 1 ? words[remaining[index - 2]] : ""
        let attached =
          connectors.contains(before) || (before == "the" && connectors.contains(beforeThe))
          || (index + length < remaining.count && words[remaining[index + length]] == "app")
        if !distinctive && !attached { found = nil }
      }
      guard let (app, length) = found else {
        index += 1
        continue
      }
      apps.append(app)
      var start = index
      var end = index + length
      // "… in the UnicornPay app", "… with CornChat": the words that attached it go too.
      if end < remaining.count, words[remaining[end]] == "app" { end += 1 }
      if start > 0, words[remaining[start - 1]] == "the" { start -= 1 }
      if start > 0, connectors.contains(words[remaining[start - 1]]) { start -= 1 }
      remaining.removeSubrange(start..<end)
      index = start
    }
    return Found(apps: apps, remaining: remaining)
  }
}
