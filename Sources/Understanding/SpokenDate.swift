#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif

/// A date, a time or a span of days as people say them, read against the moment they say it in
/// their time zone: "tomorrow", "tomorrow at 9", "next Friday at 9:30 pm", "at noon", "on the
/// 5th", "December 5", "5 December 2026", "2026-12-05", "in 2 hours", "3 days ago", "this week",
/// "last month", "this weekend". What it stands for is a range of calendar fields (the start, and
/// the end when it is a span), as SiriKit's `INDateComponentsRange` holds it.
package struct SpokenDate: Sendable, Equatable {
  /// Calendar fields; hour and minute only when a time was said.
  package struct Fields: Sendable, Equatable {
    package var year: Int
    package var month: Int
    package var day: Int
    package var hour: Int?
    package var minute: Int?
  }

  package var start: Fields
  /// The last day (or moment) of a span; nil for a single day or moment.
  package var end: Fields?

  static let weekdays: [String: Int] = [
    "sunday": 1, "monday": 2, "tuesday": 3, "wednesday": 4, "thursday": 5, "friday": 6, "saturday": 7,
    "sun": 1, "mon": 2, "tue": 3, "tues": 3, "wed": 4, "thu": 5, "thur": 5, "thurs": 5, "fri": 6, "sat": 7,
  ]
  static let months: [String: Int] = [
    "january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
    "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
    "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
  ]
  /// Words that may lead a date without changing it ("on Friday", "by tomorrow").
  static let leading: Set<String> = ["on", "at", "by", "for", "due", "from", "since", "until", "till", "before"]

  /// Every word the reader below knows by name (besides weekdays, months, ordinals and numbers).
  static let vocabulary: Set<String> = leading.union([
    "the", "of", "a", "an", "in", "this", "next", "last", "coming", "today", "tonight", "tomorrow", "yesterday",
    "day", "days", "week", "weeks", "weekend", "month", "months", "year", "after", "ago", "now", "minute",
    "minutes", "hour", "hours", "noon", "midday", "midnight", "morning", "afternoon", "evening", "o'clock",
  ])

  /// Whether `word` may be part of a date: one the reader knows, a weekday, a month, an ordinal,
  /// a number (or one with a digit: "2026-12-05", "9:30"), or a time with am or pm on it
  /// ("ninepm"). A run of words with one that may not is no date, and `parse` need not read it.
  package static func mayBePart(_ word: String) -> Bool {
    if vocabulary.contains(word) || weekdays[word] != nil || months[word] != nil
      || SpokenNumber.ordinals[word] != nil || SpokenNumber.mayBePart(word)
    {
      return true
    }
    return word.hasSuffix("am") || word.hasSuffix("pm") || word.hasSuffix("a.m") || word.hasSuffix("p.m")
  }

  /// The date `words` say, all of them, said at `now` in `timeZone`; nil when they are not one.
  package static func parse(_ words: [String], now: Date, timeZone: TimeZone) -> SpokenDate? {
    guard !words.isEmpty, words.count <= 10, words.allSatisfy(mayBePart) else { return nil }
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    var reader = Reader(words: words, calendar: calendar, now: now)
    return reader.read()
  }

  struct Reader {
    var words: [String]
    let calendar: Calendar
    let now: Date

    var today: Fields {
      let parts = calendar.dateComponents([.year, .month, .day], from: now)
      return Fields(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    mutating func read() -> SpokenDate? {
      while let first = words.first, first != "at", SpokenDate.leading.contains(first), words.count > 1 {
        words.removeFirst()
      }
      // A time at the end ("tomorrow at 9") or at the start ("at 9 tomorrow"), or alone.
      if let (time, rest) = Self.time(atEndOf: words) {
        return day(rest).map { Self.at(time, on: $0) }
      }
      if let (time, rest) = Self.time(atStartOf: words) {
        return day(rest).map { Self.at(time, on: $0) }
      }
      if let relative = relativeMoment(words) { return relative }
      return day(words, alone: true)
    }

    static func at(_ time: (hour: Int, minute: Int), on date: SpokenDate) -> SpokenDate {
      var start = date.start
      start.hour = time.hour
      start.minute = time.minute
      return SpokenDate(start: start, end: nil)
    }

    /// A day, or a span of days; an empty phrase is today, unless the day is `alone` (no time with it).
    func day(_ words: [String], alone: Bool = false) -> SpokenDate? {
      var words = words
      while let first = words.first, SpokenDate.leading.contains(first) { words.removeFirst() }
      if alone && words.isEmpty { return nil }
      if words.first == "the", words.count > 1, SpokenDate.months[words[1]] == nil,
        SpokenNumber.ordinal(words[1]) == nil || words.count > 2
      {
        words.removeFirst()  // "the day after tomorrow"
      }
      let today = self.today
      switch words {
      case []: return SpokenDate(start: today, end: nil)
      case ["today"], ["this", "day"]: return SpokenDate(start: today, end: nil)
      case ["tonight"]:
        var start = today
        start.hour = 20
        start.minute = 0
        return SpokenDate(start: start, end: nil)
      case ["tomorrow"]: return shifted(days: 1)
      case ["yesterday"]: return shifted(days: -1)
      case ["day", "after", "tomorrow"]: return shifted(days: 2)
      case ["day", "before", "yesterday"]: return shifted(days: -2)
      case ["this", "week"]: return week(offset: 0)
      case ["next", "week"]: return week(offset: 1)
      case ["last", "week"]: return week(offset: -1)
      case ["this", "month"]: return month(offset: 0)
      case ["next", "month"]: return month(offset: 1)
      case ["last", "month"]: return month(offset: -1)
      case ["this", "weekend"], ["the", "weekend"]: return weekend(offset: 0)
      case ["next", "weekend"]: return weekend(offset: 1)
      case ["last", "weekend"]: return weekend(offset: -1)
      case ["this", "year"]:
        return SpokenDate(
          start: Fields(year: today.year, month: 1, day: 1), end: Fields(year: today.year, month: 12, day: 31))
      default: break
      }
      // [this|next|last] weekday
      if let last = words.last, let weekday = SpokenDate.weekdays[last], words.count <= 2 {
        let modifier = words.count == 2 ? words[0] : nil
        guard modifier == nil || ["this", "next", "last", "coming"].contains(modifier!) else { return nil }
        return weekdayDate(weekday, modifier: modifier)
      }
      if let relative = relativeDays(words) { return relative }
      return absolute(words)
    }

    func shifted(days: Int) -> SpokenDate? {
      guard let date = calendar.date(byAdding: .day, value: days, to: now) else { return nil }
      return SpokenDate(start: fields(date), end: nil)
    }

    func fields(_ date: Date) -> Fields {
      let parts = calendar.dateComponents([.year, .month, .day], from: date)
      return Fields(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    /// The week (Monday to Sunday) `offset` weeks from this one.
    func week(offset: Int) -> SpokenDate? {
      let weekday = calendar.component(.weekday, from: now)  // 1 Sunday … 7 Saturday
      let sinceMonday = (weekday + 5) % 7
      guard let monday = calendar.date(byAdding: .day, value: -sinceMonday + 7 * offset, to: now),
        let sunday = calendar.date(byAdding: .day, value: 6, to: monday)
      else { return nil }
      return SpokenDate(start: fields(monday), end: fields(sunday))
    }

    func weekend(offset: Int) -> SpokenDate? {
      let weekday = calendar.component(.weekday, from: now)
      // This weekend: the coming Saturday (today when it is Saturday; yesterday's when Sunday).
      let toSaturday = weekday == 1 ? -1 : 7 - weekday
      guard let saturday = calendar.date(byAdding: .day, value: toSaturday + 7 * offset, to: now),
        let sunday = calendar.date(byAdding: .day, value: 1, to: saturday)
      else { return nil }
      return SpokenDate(start: fields(saturday), end: fields(sunday))
    }

    func month(offset: Int) -> SpokenDate? {
      let today = self.today
      var components = DateComponents(year: today.year, month: today.month, day: 1)
      guard let first = calendar.date(from: components),
        let shifted = calendar.date(byAdding: .month, value: offset, to: first),
        let next = calendar.date(byAdding: .month, value: 1, to: shifted),
        let last = calendar.date(byAdding: .day, value: -1, to: next)
      else { return nil }
      components = DateComponents()
      return SpokenDate(start: fields(shifted), end: fields(last))
    }

    /// "Friday", "this Friday": the next Friday from today (today itself when it is Friday); "next
    /// Friday": the next one after today; "last Friday": the last one before today.
    func weekdayDate(_ weekday: Int, modifier: String?) -> SpokenDate? {
      let todayWeekday = calendar.component(.weekday, from: now)
      var ahead = (weekday - todayWeekday + 7) % 7
      switch modifier {
      case "next": if ahead == 0 { ahead = 7 }
      case "last": ahead = ahead == 0 ? -7 : ahead - 7
      default: break
      }
      return shifted(days: ahead)
    }

    /// "in 3 days", "3 days from now", "2 weeks ago".
    func relativeDays(_ words: [String]) -> SpokenDate? {
      var words = words
      var sign = 1
      if words.first == "in" {
        words.removeFirst()
      } else if words.suffix(2) == ["from", "now"] {
        words.removeLast(2)
      } else if words.last == "ago" {
        words.removeLast()
        sign = -1
      } else {
        return nil
      }
      guard let unit = words.last,
        let count = SpokenNumber.integer(Array(words.dropLast()))
          ?? (words.count == 2 && (words[0] == "a" || words[0] == "an") ? 1 : nil)
      else { return nil }
      switch unit {
      case "day", "days": return shifted(days: sign * count)
      case "week", "weeks": return shifted(days: sign * 7 * count)
      case "month", "months":
        guard let date = calendar.date(byAdding: .month, value: sign * count, to: now) else { return nil }
        return SpokenDate(start: fields(date), end: nil)
      default: return nil
      }
    }

    /// "in 2 hours", "in 30 minutes": a moment today or later.
    func relativeMoment(_ words: [String]) -> SpokenDate? {
      guard words.first == "in", let unit = words.last else { return nil }
      let number = Array(words.dropFirst().dropLast())
      guard let count = SpokenNumber.integer(number) ?? (number == ["a"] || number == ["an"] ? 1 : nil) else {
        return nil
      }
      let component: Calendar.Component
      switch unit {
      case "minute", "minutes": component = .minute
      case "hour", "hours": component = .hour
      default: return nil
      }
      guard let date = calendar.date(byAdding: component, value: count, to: now) else { return nil }
      let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
      return SpokenDate(
        start: Fields(year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour, minute: parts.minute),
        end: nil)
    }

    /// "December 5", "Dec 5th 2026", "5 December", "the 5th of December", "the 5th", "2026-12-05",
    /// "12/5" (month first).
    func absolute(_ words: [String]) -> SpokenDate? {
      var words = words.filter { $0 != "of" && $0 != "the" }
      let today = self.today
      if words.count == 1 {
        let parts = words[0].split(separator: "-")
        if parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) {
          return valid(year: year, month: month, day: day)
        }
        let slashed = words[0].split(separator: "/")
        if slashed.count >= 2, let month = Int(slashed[0]), let day = Int(slashed[1]) {
          let year = slashed.count == 3 ? Int(slashed[2]).map { $0 < 100 ? 2000 + $0 : $0 } : today.year
          return year.flatMap { valid(year: $0, month: month, day: day) }
        }
        // "the 5th": this month's, or next month's once it has passed.
        if let day = SpokenNumber.ordinal(words[0]), day >= 1, day <= 31, words[0] != String(day) {
          var month = today.month
          var year = today.year
          if day < today.day {
            month += 1
            if month > 12 { (month, year) = (1, year + 1) }
          }
          return valid(year: year, month: month, day: day)
        }
        return nil
      }
      var year: Int?
      if let last = words.last, last.count == 4, let value = Int(last), value > 1900 {
        year = value
        words.removeLast()
      }
      guard words.count == 2 else { return nil }
      let month: Int
      let day: Int
      if let first = SpokenDate.months[words[0]], let second = SpokenNumber.ordinal(words[1]) {
        (month, day) = (first, second)
      } else if let first = SpokenNumber.ordinal(words[0]), let second = SpokenDate.months[words[1]] {
        (month, day) = (second, first)
      } else {
        return nil
      }
      return valid(year: year ?? today.year, month: month, day: day)
    }

    func valid(year: Int, month: Int, day: Int) -> SpokenDate? {
      guard (1...12).contains(month), (1...31).contains(day),
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
        calendar.component(.day, from: date) == day
      else { return nil }
      return SpokenDate(start: Fields(year: year, month: month, day: day), end: nil)
    }

    // MARK: Times

    /// A time at the end of `words` ("… at 9", "… 9:30 pm", "… at noon"), and the words before it.
    static func time(atEndOf words: [String]) -> ((hour: Int, minute: Int), [String])? {
      for length in stride(from: min(4, words.count), through: 1, by: -1) {
        let tail = Array(words.suffix(length))
        if let time = time(tail) { return (time, Array(words.dropLast(length))) }
      }
      return nil
    }

    /// A time at the start of `words` ("at 9 tomorrow"), and the words after it.
    static func time(atStartOf words: [String]) -> ((hour: Int, minute: Int), [String])? {
      for length in stride(from: min(4, words.count), through: 1, by: -1) {
        let head = Array(words.prefix(length))
        if let time = time(head), head.first == "at" || head.count > 1 || words.count == length {
          return (time, Array(words.dropFirst(length)))
        }
      }
      return nil
    }

    /// "at 9", "9am", "9 am", "9:30", "9:30 pm", "noon", "midnight", "9 o'clock", "at 9 in the
    /// morning". A bare number is no time ("25", "5"): it needs "at", am/pm, a colon or o'clock.
    static func time(_ words: [String]) -> (hour: Int, minute: Int)? {
      var words = words
      var marked = false
      if words.first == "at" {
        words.removeFirst()
        marked = true
      }
      guard !words.isEmpty else { return nil }
      if words == ["noon"] || words == ["midday"] { return (12, 0) }
      if words == ["midnight"] { return (0, 0) }
      var meridiem: String?
      if let last = words.last {
        for suffix in ["a.m", "p.m", "am", "pm"] where last.hasSuffix(suffix) {
          meridiem = suffix.hasPrefix("a") ? "am" : "pm"
          let rest = String(last.dropLast(suffix.count))
          if rest.isEmpty { words.removeLast() } else { words[words.count - 1] = rest }
          break
        }
      }
      if words.suffix(3) == ["in", "the", "morning"] {
        meridiem = "am"
        words.removeLast(3)
      } else if words.suffix(3) == ["in", "the", "afternoon"] || words.suffix(3) == ["in", "the", "evening"] {
        meridiem = "pm"
        words.removeLast(3)
      } else if words.last == "o'clock" {
        words.removeLast()
        marked = true
      }
      marked = marked || meridiem != nil
      guard words.count == 1 || words.count == 2 else { return nil }
      var hour: Int
      var minute = 0
      let clock = words[0].split(separator: ":", omittingEmptySubsequences: false)
      if clock.count == 2, let h = Int(clock[0]), let m = Int(clock[1]), clock[1].count == 2 {
        guard words.count == 1 else { return nil }
        (hour, minute) = (h, m)
        marked = true
      } else if let h = SpokenNumber.integer([words[0]]) {
        hour = h
        if words.count == 2 {
          // "9 30", "nine thirty"
          guard let m = SpokenNumber.integer([words[1]]), (0..<60).contains(m) else { return nil }
          minute = m
        }
      } else {
        return nil
      }
      guard marked, (0...23).contains(hour), (0..<60).contains(minute) else { return nil }
      switch meridiem {
      case "am":
        guard hour <= 12 else { return nil }
        if hour == 12 { hour = 0 }
      case "pm":
        guard hour <= 12 else { return nil }
        if hour < 12 { hour += 12 }
      default:
        break
      }
      return (hour, minute)
    }
  }
}
