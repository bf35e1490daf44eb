internal import Foundation

/// A JSON tree made of values, so that what a key path reads is Sendable.
package indirect enum JSONValue: Sendable, Equatable {
  case string(String)
  /// A number, as its decimal text (exact for proto3 JSON's int64 strings and integers).
  case number(String)
  case bool(Bool)
  case array([JSONValue])
  case object([String: JSONValue])
  case null

  /// Converts what `JSONSerialization` produces.
  package init(_ value: Any) {
    switch value {
    case let string as String: self = .string(string)
    case let number as NSNumber:
      // JSONSerialization reports booleans as NSNumbers of Objective-C type "c" (char).
      self = String(cString: number.objCType) == "c" ? .bool(number.boolValue) : .number(number.stringValue)
    case let array as [Any]: self = .array(array.map(JSONValue.init))
    case let object as [String: Any]: self = .object(object.mapValues(JSONValue.init))
    default: self = .null
    }
  }
}
