/// Numbers as people write or say them: digits ("25", "25.50", "1,000"), words ("twenty five",
/// "twenty-five", "a hundred and five", "three thousand"), and ordinals for days ("5th", "fifth").
package enum SpokenNumber {
  static let units: [String: Int] = [
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
  ]
  static let tens: [String: Int] = [
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
  ]
  static let scales: [String: Int] = ["hundred": 100, "thousand": 1000, "million": 1_000_000]
  static let ordinals: [String: Int] = [
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
    "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15,
    "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
  ]

  /// Whether `word` may be part of a number: one with a digit, or whose every part between
  /// hyphens is a number's word ("twenty-five", "hundred", "a", "and"). A run of words with one
  /// that may not is no number, and `value` need not read it.
  package static func mayBePart(_ word: String) -> Bool {
    if word.utf8.contains(where: { $0 >= 0x30 && $0 <= 0x39 }) { return true }
    return word.split(separator: "-").allSatisfy { part in
      let part = String(part)
      return units[part] != nil || tens[part] != nil || scales[part] != nil || part == "a" || part == "an"
        || part == "and"
    }
  }

  /// The number `words` say together, all of them; nil when they are not one number.
  package static func value(_ words: [String]) -> Double? {
    guard !words.isEmpty, words.allSatisfy(mayBePart) else { return nil }
    if words.count == 1, let digits = digits(words[0]) { return digits }
    // Words: "twenty five", "twenty-five", "a hundred and five", "two thousand three hundred".
    let parts = words.flatMap { $0.split(separator: "-").map(String.init) }
    var total = 0
    var current = 0
    var seenNumber = false
    for (index, part) in parts.enumerated() {
      if let unit = units[part] {
        guard current % 10 == 0 || current >= 100 else { return nil }  // "five six"
        current += unit
        seenNumber = true
      } else if let ten = tens[part] {
        guard current % 100 == 0 else { return nil }  // "twenty thirty"
        current += ten
        seenNumber = true
      } else if let scale = scales[part] {
        if current == 0 { current = 1 }
        if scale == 100 {
          current *= 100
        } else {
          total += current * scale
          current = 0
        }
        seenNumber = true
      } else if part == "a" || part == "an" {
        // "a hundred": only right before a scale.
        guard index + 1 < parts.count, scales[parts[index + 1]] != nil, current == 0 else { return nil }
      } else if part == "and" {
        guard seenNumber, index + 1 < parts.count else { return nil }
      } else if let digits = digits(part), !seenNumber, index + 1 < parts.count, scales[parts[index + 1]] != nil {
        // "2 thousand"
        current = Int(digits)
        seenNumber = true
      } else {
        return nil
      }
    }
    return seenNumber ? Double(total + current) : nil
  }

  /// A whole number of `words`; nil when they say none or a fraction.
  package static func integer(_ words: [String]) -> Int? {
    guard let value = value(words), value == value.rounded(), abs(value) < 1e15 else { return nil }
    return Int(value)
  }

  /// "25", "25.50", "1,000", "1,000.5": digits with at most one decimal point and thousands
  /// separators in their places.
  package static func digits(_ word: String) -> Double? {
    var text = word
    if text.contains(",") {
      let groups = text.split(separator: ".", maxSplits: 1)
      let integerGroups = groups[0].split(separator: ",", omittingEmptySubsequences: false)
      guard integerGroups.count > 1, integerGroups[0].count <= 3, integerGroups[0].count > 0,
        integerGroups.dropFirst().allSatisfy({ $0.count == 3 })
      else { return nil }
      text = text.replacing(",", with: "")
    }
    guard !text.isEmpty, text.first != ".", text.last != ".",
      text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), text.filter({ $0 == "." }).count <= 1
    else { return nil }
    return Double(text)
  }

  /// A day of the month: "5", "5th", "1st", "fifth", "the fifth".
  package static func ordinal(_ word: String) -> Int? {
    if let value = ordinals[word] { return value }
    for suffix in ["st", "nd", "rd", "th"] where word.hasSuffix(suffix) {
      return Int(word.dropLast(2))
    }
    return Int(word)
  }
}
