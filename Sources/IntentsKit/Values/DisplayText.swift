internal import SwiftProtobuf
internal import Foundation
package import IntentMeshProtos

/// Text renderings of shared values, for default views and prompts.
package enum DisplayText {
  /// "85.00 USD": exact, from units and nanos, never through floating point.
  package static func currency(_ amount: Intentmesh_V1_CurrencyAmount) -> String {
    "\(decimal(units: amount.units, nanos: amount.nanos)) \(amount.currencyCode)"
  }

  /// The decimal text of `units + nanos / 1e9`, with at least two fraction digits.
  /// Any units and nanos a message may hold are shown as their sum: nanos beyond ±999,999,999 carry
  /// into the units, and units and nanos of opposite signs are combined (5 units and -0.5 are 4.50).
  package static func decimal(units: Int64, nanos: Int32) -> String {
    let billion: Int64 = 1_000_000_000
    var units = units
    var nanos = Int64(nanos)
    let (carried, overflow) = units.addingReportingOverflow(nanos / billion)
    if !overflow {
      units = carried
      nanos %= billion
    }
    if units > 0, nanos < 0 {
      units -= 1
      nanos += billion
    } else if units < 0, nanos > 0 {
      units += 1
      nanos -= billion
    }
    let negative = units < 0 || nanos < 0
    // The fraction: nine digits (ten when nanos could not carry), trailing zeros cut to two.
    var fraction = nanos.magnitude
    var fractionDigits = fraction >= UInt64(billion) ? 10 : 9
    while fractionDigits > 2, fraction % 10 == 0 {
      fraction /= 10
      fractionDigits -= 1
    }
    var integerDigits = 1
    var rest = units.magnitude / 10
    while rest > 0 {
      integerDigits += 1
      rest /= 10
    }
    // Written right to left as ASCII: on every resolved amount, where String's Character-wise
    // padding and trimming cost more than the rest of the value's display.
    let length = (negative ? 1 : 0) + integerDigits + 1 + fractionDigits
    return String(unsafeUninitializedCapacity: length) { text in
      var index = length
      for _ in 0..<fractionDigits {
        index -= 1
        text[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
        fraction /= 10
      }
      index -= 1
      text[index] = UInt8(ascii: ".")
      var integer = units.magnitude
      for _ in 0..<integerDigits {
        index -= 1
        text[index] = UInt8(ascii: "0") + UInt8(integer % 10)
        integer /= 10
      }
      if negative { text[0] = UInt8(ascii: "-") }
      return length
    }
  }

  /// "2026-11-21 17:00" style text of date components; absent fields are left out.
  package static func dateComponents(_ components: Intentmesh_V1_DateComponents) -> String {
    var date = ""
    if components.hasYear || components.hasMonth || components.hasDay {
      date = [
        components.hasYear ? String(format: "%04d", components.year) : nil,
        components.hasMonth ? String(format: "%02d", components.month) : nil,
        components.hasDay ? String(format: "%02d", components.day) : nil,
      ].compactMap { $0 }.joined(separator: "-")
    }
    var time = ""
    if components.hasHour {
      time = String(format: "%02d:%02d", components.hour, components.hasMinute ? components.minute : 0)
    }
    return [date, time].filter { !$0.isEmpty }.joined(separator: " ")
  }

  /// "from … to …" text of a date range.
  package static func dateRange(_ range: Intentmesh_V1_DateComponentsRange) -> String {
    let start = range.hasStartDateComponents ? dateComponents(range.startDateComponents) : ""
    let end = range.hasEndDateComponents ? dateComponents(range.endDateComponents) : ""
    switch (start.isEmpty, end.isEmpty) {
    case (false, false): return "\(start) – \(end)"
    case (false, true): return "from \(start)"
    case (true, false): return "until \(end)"
    case (true, true): return ""
    }
  }
}
