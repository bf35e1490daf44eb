import Foundation
import Testing

@testable import Understanding

/// Numbers, amounts and dates as people say them, read without a matcher around them.
@Suite("Understanding: numbers, amounts and dates as said")
struct SpokenValuesTests {
  static func words(_ text: String) -> [String] { Utterance(text).words.map(\.text) }

  @Test(
    "numbers in digits and in words",
    arguments: [
      ("25", 25.0), ("25.50", 25.5), ("1,000", 1000), ("1,000.25", 1000.25), ("twenty five", 25),
      ("twenty-five", 25), ("a hundred", 100), ("one hundred and five", 105), ("three thousand", 3000),
      ("two thousand three hundred", 2300), ("2 thousand", 2000), ("zero", 0), ("nineteen", 19),
    ])
  func numbers(text: String, value: Double) {
    #expect(SpokenNumber.value(Self.words(text)) == value)
  }

  @Test(
    "not numbers", arguments: ["", "five six", "twenty thirty", "1,00", "1.2.3", "a", "and five", "12a", "hundred and"])
  func notNumbers(text: String) {
    #expect(SpokenNumber.value(Self.words(text)) == nil)
  }

  @Test(
    "amounts with a currency, in symbols, codes and words",
    arguments: [
      ("$25", "USD", 25, 0), ("$ 25.50", "USD", 25, 500_000_000), ("25€", "EUR", 25, 0), ("£5", "GBP", 5, 0),
      ("25 dollars", "USD", 25, 0), ("twenty five euros", "EUR", 25, 0), ("5 quid", "GBP", 5, 0),
      ("USD 25", "USD", 25, 0), ("20 dollars and 50 cents", "USD", 20, 500_000_000), ("100 yen", "JPY", 100, 0),
      ("20 swiss francs", "CHF", 20, 0), ("85 bucks", "USD", 85, 0), ("50 cents", "USD", 0, 500_000_000),
    ] as [(String, String, Int64, Int32)])
  func amounts(text: String, currency: String, units: Int64, nanos: Int32) {
    #expect(
      SpokenAmount.parse(Self.words(text), bareCurrency: nil)
        == SpokenAmount(currencyCode: currency, units: units, nanos: nanos))
  }

  @Test("a bare number is an amount only in the locale's currency when one is given")
  func bareAmounts() {
    #expect(SpokenAmount.parse(["25"], bareCurrency: nil) == nil)
    #expect(SpokenAmount.parse(["25"], bareCurrency: "CHF") == SpokenAmount(currencyCode: "CHF", units: 25, nanos: 0))
    #expect(SpokenAmount.defaultCurrency(locale: "de-CH") == "CHF")
    #expect(SpokenAmount.defaultCurrency(locale: "en_GB") == "GBP")
    #expect(SpokenAmount.defaultCurrency(locale: "fr-FR") == "EUR")
    #expect(SpokenAmount.defaultCurrency(locale: "") == "USD")
    #expect(SpokenAmount.parse(Self.words("25 dollars for rainbow polish"), bareCurrency: "USD") == nil)
  }

  /// Tuesday 1 December 2026, 15:20 in Zurich.
  static let now = Date(timeIntervalSince1970: 1_796_134_800)
  static let zurich = TimeZone(identifier: "Europe/Zurich")!

  static func date(_ text: String) -> SpokenDate? {
    SpokenDate.parse(words(text), now: now, timeZone: zurich)
  }

  static func day(_ year: Int, _ month: Int, _ day: Int, _ hour: Int? = nil, _ minute: Int? = nil) -> SpokenDate.Fields
  {
    SpokenDate.Fields(year: year, month: month, day: day, hour: hour, minute: minute)
  }

  @Test("the reference moment is a Tuesday afternoon in Zurich")
  func reference() {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = Self.zurich
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .weekday], from: Self.now)
    #expect([parts.year, parts.month, parts.day, parts.hour, parts.weekday] == [2026, 12, 1, 15, 3])
  }

  @Test(
    "days, times and spans against the moment they are said",
    arguments: [
      ("today", day(2026, 12, 1), nil), ("tomorrow", day(2026, 12, 2), nil), ("yesterday", day(2026, 11, 30), nil),
      ("tomorrow at 9", day(2026, 12, 2, 9, 0), nil), ("tomorrow at 9:30 pm", day(2026, 12, 2, 21, 30), nil),
      ("at 9 tomorrow", day(2026, 12, 2, 9, 0), nil), ("at noon", day(2026, 12, 1, 12, 0), nil),
      ("friday", day(2026, 12, 4), nil), ("on Friday", day(2026, 12, 4), nil),
      ("next friday at 9", day(2026, 12, 4, 9, 0), nil),
      ("tuesday", day(2026, 12, 1), nil), ("next tuesday", day(2026, 12, 8), nil),
      ("last tuesday", day(2026, 11, 24), nil),
      ("december 5", day(2026, 12, 5), nil), ("5 December 2027", day(2027, 12, 5), nil),
      ("the 5th", day(2026, 12, 5), nil),
      ("2026-12-24", day(2026, 12, 24), nil), ("in 3 days", day(2026, 12, 4), nil),
      ("2 weeks ago", day(2026, 11, 17), nil),
      ("in 2 hours", day(2026, 12, 1, 17, 20), nil), ("tonight", day(2026, 12, 1, 20, 0), nil),
      ("this week", day(2026, 11, 30), day(2026, 12, 6)), ("last week", day(2026, 11, 23), day(2026, 11, 29)),
      ("this month", day(2026, 12, 1), day(2026, 12, 31)), ("last month", day(2026, 11, 1), day(2026, 11, 30)),
      ("this weekend", day(2026, 12, 5), day(2026, 12, 6)), ("9 o'clock", day(2026, 12, 1, 9, 0), nil),
      ("at 7 in the evening", day(2026, 12, 1, 19, 0), nil), ("the day after tomorrow", day(2026, 12, 3), nil),
    ] as [(String, SpokenDate.Fields, SpokenDate.Fields?)])
  func dates(text: String, start: SpokenDate.Fields, end: SpokenDate.Fields?) {
    #expect(Self.date(text) == SpokenDate(start: start, end: end), "\(text)")
  }

  @Test("not dates", arguments: ["25", "5", "banana", "at 25", "february 30", "next banana", "13:75", "the", "on"])
  func notDates(text: String) {
    #expect(Self.date(text) == nil, "\(text)")
  }

  /// Every word the date reader knows by name, in a date: `SpokenDate.mayBePart` must let each
  /// through, or `parse` refuses the date without reading it.
  @Test(
    "dates in every word the reader knows",
    arguments: [
      "3 days from now", "a hundred and five days ago", "in a week", "in an hour", "in 30 minutes",
      "the coming friday", "coming sat", "this year", "the day before yesterday", "sept 5th",
      "the 5th of december", "12/24", "12/24/27", "ninepm", "9 a.m", "9 p.m", "at 9 in the morning",
      "at 3 in the afternoon", "at midnight", "midday", "until tomorrow", "since monday", "due thursday",
      "till friday", "before next week", "next month", "last weekend", "next weekend", "in 2 months",
      "first of january",
    ])
  func datesInTheReadersWords(text: String) {
    #expect(Self.date(text) != nil, "\(text)")
    #expect(Self.words(text).allSatisfy(SpokenDate.mayBePart), "\(text)")
  }

  @Test("a run of words with one that no number, amount or date has is none, without reading it")
  func outsiders() {
    #expect(!SpokenNumber.mayBePart("banana") && !SpokenAmount.mayBePart("banana") && !SpokenDate.mayBePart("banana"))
    #expect(
      SpokenNumber.mayBePart("twenty-five") && SpokenNumber.mayBePart("12a") && !SpokenNumber.mayBePart("twenty-banana")
    )
    #expect(SpokenAmount.mayBePart("$25") && SpokenAmount.mayBePart("25€") && SpokenAmount.mayBePart("cents"))
    #expect(SpokenNumber.value(Self.words("twenty five banana")) == nil)
    #expect(SpokenAmount.parse(Self.words("25 dollars banana"), bareCurrency: "USD") == nil)
    #expect(Self.date("tomorrow banana") == nil)
    #expect(Self.date("friday at 9 sharp") == nil)
  }
}
