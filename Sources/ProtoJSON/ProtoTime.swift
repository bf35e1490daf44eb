/// google.protobuf.Timestamp and Duration as proto3 JSON writes them ("2026-11-25T12:30:00.250Z",
/// "1.5s"), converted without Foundation: days from civil dates by Howard Hinnant's algorithm.
enum ProtoTime {
  /// Seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range Timestamp allows.
  static let minSeconds: Int64 = -62_135_596_800
  static let maxSeconds: Int64 = 253_402_300_799

  /// RFC 3339 → seconds and nanoseconds since 1970 (UTC).
  static func timestamp(_ text: String) throws(ProtoJSONError) -> (Int64, Int32) {
    let bytes = Array(text.utf8)
    func fail() -> ProtoJSONError { ProtoJSONError("\(text) is not an RFC 3339 time such as 2026-11-25T12:30:00Z") }
    func number(_ start: Int, _ count: Int) throws(ProtoJSONError) -> Int64 {
      guard start + count <= bytes.count else { throw fail() }
      var value: Int64 = 0
      for byte in bytes[start..<start + count] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { throw fail() }
        value = value * 10 + Int64(byte - UInt8(ascii: "0"))
      }
      return value
    }
    func expect(_ at: Int, _ characters: String) throws(ProtoJSONError) {
      guard at < bytes.count, characters.utf8.contains(bytes[at]) else { throw fail() }
    }
    let (year, month, day) = (try number(0, 4), try number(5, 2), try number(8, 2))
    try expect(4, "-")
    try expect(7, "-")
    try expect(10, "Tt")
    let (hour, minute, second) = (try number(11, 2), try number(14, 2), try number(17, 2))
    try expect(13, ":")
    try expect(16, ":")
    guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
      second < 60
    else { throw fail() }
    var position = 19
    var nanos: Int64 = 0
    if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
      position += 1
      var digits = 0
      while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]) {
        guard digits < 9 else { throw fail() }
        nanos = nanos * 10 + Int64(bytes[position] - UInt8(ascii: "0"))
        digits += 1
        position += 1
      }
      guard digits > 0 else { throw fail() }
      for _ in digits..<9 { nanos *= 10 }
    }
    var offset: Int64 = 0
    try expect(position, "Zz+-")
    if bytes[position] == UInt8(ascii: "Z") || bytes[position] == UInt8(ascii: "z") {
      position += 1
    } else {
      let sign: Int64 = bytes[position] == UInt8(ascii: "-") ? -1 : 1
      let (hours, minutes) = (try number(position + 1, 2), try number(position + 4, 2))
      try expect(position + 3, ":")
      guard hours < 24, minutes < 60 else { throw fail() }
      offset = sign * (hours * 3600 + minutes * 60)
      position += 6
    }
    guard position == bytes.count else { throw fail() }
    let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offset
    guard (minSeconds...maxSeconds).contains(seconds) else { throw fail() }
    return (seconds, Int32(nanos))
  }

  /// Seconds and nanoseconds since 1970 → RFC 3339 in UTC, with 0, 3, 6 or 9 fractional digits.
  static func timestampText(seconds: Int64, nanos: Int32) throws(ProtoJSONError) -> String {
    guard (minSeconds...maxSeconds).contains(seconds), (0..<1_000_000_000).contains(nanos) else {
      throw ProtoJSONError("a Timestamp out of range (\(seconds) s, \(nanos) ns)")
    }
    let dayNumber = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let secondOfDay = seconds - dayNumber * 86_400
    let (year, month, day) = civil(days: dayNumber)
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let yearText = String(String(year + 10_000).dropFirst())
    return "\(yearText)-\(two(month))-\(two(day))T\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):"
      + "\(two(secondOfDay % 60))\(fraction(nanos))Z"
  }

  /// "1.5s", "-0.000001s" → seconds and nanoseconds (both of the sign of the whole).
  static func duration(_ text: String) throws(ProtoJSONError) -> (Int64, Int32) {
    func fail() -> ProtoJSONError { ProtoJSONError("\(text) is not a duration such as 1.5s") }
    guard text.hasSuffix("s") else { throw fail() }
    var body = Substring(text.dropLast())
    let negative = body.hasPrefix("-")
    if negative { body = body.dropFirst() }
    let parts = body.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count <= 2, !parts[0].isEmpty, parts[0].allSatisfy(\.isWholeNumber), parts[0].allSatisfy(\.isASCII),
      let whole = Int64(parts[0]),
      whole <= 315_576_000_000
    else { throw fail() }
    var nanos: Int64 = 0
    if parts.count == 2 {
      let digits = parts[1]
      // Digits only: Int64 alone would also take a sign ("3.-5s").
      guard (1...9).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isWholeNumber }),
        let value = Int64(digits)
      else {
        throw fail()
      }
      nanos = value
      for _ in digits.count..<9 { nanos *= 10 }
    }
    return negative ? (-whole, Int32(-nanos)) : (whole, Int32(nanos))
  }

  /// Seconds and nanoseconds → "1.500s", fraction in 0, 3, 6 or 9 digits.
  static func durationText(seconds: Int64, nanos: Int32) throws(ProtoJSONError) -> String {
    guard abs(seconds) <= 315_576_000_000, abs(nanos) < 1_000_000_000,
      seconds == 0 || nanos == 0 || (seconds < 0) == (nanos < 0)
    else { throw ProtoJSONError("a Duration out of range (\(seconds) s, \(nanos) ns)") }
    let sign = seconds < 0 || nanos < 0 ? "-" : ""
    return "\(sign)\(abs(seconds))\(fraction(abs(nanos)))s"
  }

  /// ".250" for 250,000,000 ns: the fewest of 3, 6 or 9 digits that hold it; "" for none.
  private static func fraction(_ nanos: Int32) -> String {
    guard nanos != 0 else { return "" }
    let digits = String(String(Int(nanos) + 1_000_000_000).dropFirst())
    if nanos % 1_000_000 == 0 { return "." + digits.prefix(3) }
    if nanos % 1000 == 0 { return "." + digits.prefix(6) }
    return "." + digits
  }

  private static func isLeap(_ year: Int64) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

  private static func daysIn(month: Int64, year: Int64) -> Int64 {
    switch month {
    case 2: isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }

  /// Days since 1970-01-01 of a proleptic Gregorian date.
  static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date of a day number since 1970-01-01.
  static func civil(days: Int64) -> (year: Int64, month: Int64, day: Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }
}
