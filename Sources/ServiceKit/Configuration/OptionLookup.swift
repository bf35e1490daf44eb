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
    let text: String
    if let flag { text = String(flag) } else if let variable = string(nil, key) { text = variable } else { return nil }
    guard let number = Int(text), range.contains(number) else {
      let wanted =
        range.upperBound == Int.max
        ? "at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
      throw ValidationError("\(what) \(text) is not a whole number \(wanted)")
    }
    return number
  }

  /// A number of seconds in `range`, from the flag or the variable; nil when neither is given.
  package func seconds(_ flag: Double?, _ key: String, _ what: String, in range: ClosedRange<Double>) throws -> Double?
  {
    let text: String
    if let flag { text = "\(flag)" } else if let variable = string(nil, key) { text = variable } else { return nil }
    guard let number = Double(text), range.contains(number) else {
      throw ValidationError(
        "\(what) \(text) is not a number of seconds from \(range.lowerBound) to \(range.upperBound)")
    }
    return number
  }
}
