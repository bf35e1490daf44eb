/// An amount of money as people write or say it: "$25", "25.50 €", "25 dollars", "twenty five
/// euros", "5 quid", "USD 25", "20 dollars and 50 cents"; a bare number ("pay Buttercup 25") in the
/// currency of the user's locale.
package struct SpokenAmount: Sendable, Equatable {
  /// ISO 4217.
  package let currencyCode: String
  package let units: Int64
  /// Billionths of the currency unit, as `google.type.Money` and `intentmesh.v1.CurrencyAmount` keep them.
  package let nanos: Int32

  package init(currencyCode: String, units: Int64, nanos: Int32) {
    self.currencyCode = currencyCode
    self.units = units
    self.nanos = nanos
  }

  init?(currencyCode: String, value: Double) {
    guard value >= 0, value < 1e12 else { return nil }
    let cents = (value * 100).rounded()
    self.currencyCode = currencyCode
    units = Int64(cents / 100)
    nanos = Int32(cents.truncatingRemainder(dividingBy: 100)) * 10_000_000
  }

  static let symbols: [Character: String] = ["$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"]
  static let names: [String: String] = [
    "dollar": "USD", "dollars": "USD", "buck": "USD", "bucks": "USD", "usd": "USD",
    "euro": "EUR", "euros": "EUR", "eur": "EUR",
    "pound": "GBP", "pounds": "GBP", "quid": "GBP", "gbp": "GBP",
    "yen": "JPY", "jpy": "JPY",
    "franc": "CHF", "francs": "CHF", "chf": "CHF",
  ]
  static let cents: Set<String> = ["cent", "cents", "pence", "penny", "pennies"]

  /// The currency a bare number is in, for a BCP 47 `locale` ("en-US", "de_CH").
  package static func defaultCurrency(locale: String) -> String {
    let region = locale.split(whereSeparator: { $0 == "-" || $0 == "_" }).dropFirst().first.map { $0.uppercased() }
    switch region {
    case "GB": return "GBP"
    case "CH", "LI": return "CHF"
    case "JP": return "JPY"
    case "DE", "FR", "ES", "IT", "NL", "AT", "BE", "IE", "PT", "FI", "GR", "LU": return "EUR"
    default: return "USD"
    }
  }

  /// Whether `word` may be part of an amount: a number's, a currency's (its name, its symbol
  /// before or after), a fraction's ("cents") or "us", "swiss". A run of words with one that may
  /// not is no amount, and `parse` need not read it.
  package static func mayBePart(_ word: String) -> Bool {
    if let first = word.first, symbols[first] != nil { return true }
    if let last = word.last, symbols[last] != nil { return true }
    return SpokenNumber.mayBePart(word) || names[word] != nil || cents.contains(word) || word == "us"
      || word == "swiss"
  }

  /// The amount `words` say, all of them; nil when they are not one. `bareCurrency`: the currency
  /// of a number said without one (nil: a bare number is no amount).
  package static func parse(_ words: [String], bareCurrency: String?) -> SpokenAmount? {
    guard !words.isEmpty, words.count <= 8, words.allSatisfy(mayBePart) else { return nil }
    var words = words
    var currency: String?
    // A symbol before or after the number, in its word or alone: "$25", "$ 25", "25€", "25 €".
    if let first = words.first?.first, let code = symbols[first] {
      currency = code
      words[0].removeFirst()
      if words[0].isEmpty { words.removeFirst() }
    } else if let last = words.last?.last, let code = symbols[last] {
      currency = code
      words[words.count - 1].removeLast()
      if words[words.count - 1].isEmpty { words.removeLast() }
    } else if let code = names[words.first ?? ""], words.count > 1, Double(words[1].replacing(",", with: "")) != nil {
      // "USD 25"
      currency = code
      words.removeFirst()
    }
    guard !words.isEmpty else { return nil }
    // "20 dollars and 50 cents"
    if currency == nil, let andIndex = words.firstIndex(of: "and"), andIndex > 1,
      let code = names[words[andIndex - 1]], let last = words.last, cents.contains(last),
      let whole = SpokenNumber.value(Array(words[..<(andIndex - 1)])),
      let fraction = SpokenNumber.integer(Array(words[(andIndex + 1)..<(words.count - 1)])), fraction < 100
    {
      return SpokenAmount(currencyCode: code, value: whole + Double(fraction) / 100)
    }
    if currency == nil, let last = words.last {
      if let code = names[last] {
        currency = code
        words.removeLast()
      } else if cents.contains(last), words.count > 1, let count = SpokenNumber.integer(Array(words.dropLast())) {
        return SpokenAmount(currencyCode: bareCurrency ?? "USD", value: Double(count) / 100)
      }
    }
    // "us dollars", "swiss francs"
    if let last = words.last, last == "us" || last == "swiss", currency != nil { words.removeLast() }
    guard let value = SpokenNumber.value(words) else { return nil }
    guard let code = currency ?? bareCurrency else { return nil }
    return SpokenAmount(currencyCode: code, value: value)
  }
}
