internal import ArgumentParser
internal import IntentMeshCore

/// The one reader of every executable's settings: a flag wins over its environment variable, which
/// wins over the default; an empty variable counts as unset. Numbers are checked against their range
/// with the same words whichever executable reads them.
package struct OptionLookup: Sendable {
  package let environment: [String: String]

  package init(_ environment: [String: String]) {
    self.environment = environment
  }

  /// The flag's text, else the variable's.
  package func string(_ flag: String?, _ key: String) -> String? {
    flag ?? environment[key].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// The flag's values, else the variable's comma-separated ones (trimmed, empty ones dropped).
  package func list(_ flags: [String], _ key: String) -> [String] {
    guard flags.isEmpty else { return flags }
    return (environment[key] ?? "").split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
  }

  /// A whole number in `range`, from the flag or the variable; nil when neither is given.
  package func integer(_ flag: Int?, _ key: String, _ what: String, in range: ClosedRange<Int>) throws -> Int? {
    let wanted =
      range.upperBound == Int.max ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
    return try number(flag, key, in: range) { "\(what) \($0) is not a whole number \(wanted)" }
  }

  /// A number of seconds in `range`, from the flag or the variable; nil when neither is given.
  package func seconds(_ flag: Double?, _ key: String, _ what: String, in range: ClosedRange<Double>) throws -> Double?
  {
    try number(flag, key, in: range) {
      "\(what) \($0) is not a number of seconds from \(range.lowerBound) to \(range.upperBound)"
    }
  }

  /// The flag, else the variable read as a `Number`; refused with `refusal(text)` when it does not
  /// read or lies outside `range`.
  private func number<Number: LosslessStringConvertible & Comparable>(
    _ flag: Number?, _ key: String, in range: ClosedRange<Number>, refusal: (String) -> String
  ) throws -> Number? {
    guard let text = flag.map(String.init(describing:)) ?? string(nil, key) else { return nil }
    guard let number = Number(text), range.contains(number) else { throw ValidationError(refusal(text)) }
    return number
  }
}
