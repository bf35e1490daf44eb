/// A sentence as the matcher reads it: its words, lowercased, each with where it stands in the
/// text as the user typed it (in Unicode code points, as Python's `str` counts), so that a slot's
/// value can be given back as spoken and a client can mark it.
///
/// Words are split at white space and at punctuation that never belongs to a word (`,;!?"()` and
/// friends); a full stop stays inside a number ("25.50") and is dropped at a word's end; an
/// apostrophe stays inside a word ("Scott's", "don't"); curly quotes and apostrophes count as
/// straight ones.
package struct Utterance: Sendable, Equatable {
  package struct Word: Sendable, Equatable {
    /// Lowercased, with curly apostrophes straightened.
    package let text: String
    /// Where it stands in the original text, in Unicode code points.
    package let start: Int
    package let end: Int
  }

  package let text: String
  package let words: [Word]

  package init(_ text: String) {
    self.text = text
    var words: [Word] = []
    // The word being read: its characters as typed, from code point `start`.
    var current: [Character] = []
    var start = 0
    var offset = 0
    func flush() {
      // An apostrophe at a word's start is a quotation mark ("'see you'"), as is one at its end.
      while current.first == "'" {
        current.removeFirst()
        start += 1
      }
      // A full stop or apostrophe at a word's end is punctuation ("today.", "Scotts'"); a colon
      // is a word of its own ("Kate: running late"), which samples may name.
      var colon = false
      while let last = current.last, last == "." || last == "'" || last == ":" {
        if last == ":" { colon = true }
        current.removeLast()
      }
      let length = current.reduce(0) { $0 + $1.unicodeScalars.count }
      if !current.isEmpty {
        words.append(Word(text: String(current).lowercased(), start: start, end: start + length))
      }
      if colon { words.append(Word(text: ":", start: start + length, end: start + length + 1)) }
      current = []
    }
    let characters = Array(text)
    for (index, character) in characters.enumerated() {
      let character = Self.normalized(character)
      // A comma between digits is a thousands separator ("1,000"), part of the number.
      let inNumber =
        character == "," && index > 0 && index + 1 < characters.count && characters[index - 1].isASCII
        && characters[index - 1].isNumber && characters[index + 1].isASCII && characters[index + 1].isNumber
      if character.isWhitespace || (Self.separators.contains(character) && !inNumber) {
        flush()
      } else {
        if current.isEmpty { start = offset }
        current.append(character)
      }
      offset += character.unicodeScalars.count
    }
    flush()
    self.words = words
  }

  /// The words from `range`, joined by single spaces.
  package func phrase(_ range: Range<Int>) -> String {
    words[range].map(\.text).joined(separator: " ")
  }

  /// The text as the user typed it that the words in `range` cover.
  package func original(_ range: Range<Int>) -> String {
    guard let first = range.first.map({ words[$0] }), let last = range.last.map({ words[$0] }) else { return "" }
    let scalars = text.unicodeScalars
    let from = scalars.index(scalars.startIndex, offsetBy: first.start)
    let to = scalars.index(scalars.startIndex, offsetBy: last.end)
    return String(scalars[from..<to])
  }

  /// Characters that end a word and are dropped.
  private static let separators: Set<Character> = [
    ",", ";", "!", "?", "\"", "(", ")", "[", "]", "{", "}", "<", ">", "“", "”", "«", "»", "…", "¿", "¡",
  ]

  private static func normalized(_ character: Character) -> Character {
    switch character {
    case "’", "‘", "`": "'"
    default: character
    }
  }
}
