internal import IntentMeshProtos
internal import Foundation
package import SwiftProtobuf
internal import IntentMeshCore

/// Reads a parameter value out of any generated message by SiriKit-style key path: "recipients",
/// "recipients[1]", "rideStatus.driver", "rideStatus.driver.person.displayName".
///
/// Key path segments are the fields' proto3 JSON names (lowerCamelCase), so one reader serves
/// every message without per-type code.
package enum KeyPathReader {
  /// A value found at a key path, or nothing when the field is absent.
  package struct Value: Sendable, Equatable {
    package let json: JSONValue?

    package init(json: JSONValue?) {
      self.json = json
    }

    package var isAbsent: Bool { json == nil }

    /// How a host shows the value: a person's display name, a phrase, "85.00 USD", a list joined by commas.
    package var displayText: String { json.map(Self.render) ?? "" }

    static func render(_ value: JSONValue) -> String {
      switch value {
      case .string(let string), .number(let string): return string
      case .bool(let bool): return bool ? "yes" : "no"
      case .array(let array): return array.map(render).filter { !$0.isEmpty }.joined(separator: ", ")
      case .object(let object): return renderObject(object)
      case .null: return ""
      }
    }

    static func renderObject(_ object: [String: JSONValue]) -> String {
      if case .string(let currency) = object["currencyCode"], object["units"] != nil || object["nanos"] != nil {
        let units = Int64(object["units"].map(render) ?? "0") ?? 0
        let nanos = Int32(object["nanos"].map(render) ?? "0") ?? 0
        return "\(DisplayText.decimal(units: units, nanos: nanos)) \(currency)"
      }
      for key in ["displayName", "spokenPhrase", "name", "title", "text", "content", "person"] {
        if let inner = object[key] {
          let text = render(inner)
          if !text.isEmpty { return text }
        }
      }
      return object.keys.sorted().compactMap { object[$0].map(render) }.filter { !$0.isEmpty }.joined(separator: ", ")
    }
  }

  /// The value at `keyPath` in `message`; INVALID_ARGUMENT when the path is malformed.
  package static func value(at keyPath: String, in message: any SwiftProtobuf.Message) throws -> Value {
    try value(at: keyPath, in: tree(of: message))
  }

  /// The message as a JSON tree, to read several key paths from one encoding.
  static func tree(of message: any SwiftProtobuf.Message) throws -> JSONValue {
    JSONValue(try JSONSerialization.jsonObject(with: Data(try message.jsonString().utf8)))
  }

  /// The value at `keyPath` in a tree made by `tree(of:)`.
  package static func value(at keyPath: String, in tree: JSONValue) throws -> Value {
    let segments = try parse(keyPath)
    var current: JSONValue? = tree
    for segment in segments {
      guard case .object(let object) = current else { return Value(json: nil) }
      current = object[segment.name]
      if let index = segment.index {
        guard case .array(let array) = current, index < array.count else { return Value(json: nil) }
        current = array[index]
      }
    }
    return Value(json: current)
  }

  package struct Segment: Equatable, Sendable {
    package var name: String
    package var index: Int?
  }

  /// Splits "a.b[2].c" into segments; rejects empty names and malformed indexes.
  static func parse(_ keyPath: String) throws -> [Segment] {
    let parts = keyPath.split(separator: ".", omittingEmptySubsequences: false)
    return try parts.map { part in
      var name = Substring(part)
      var index: Int?
      if let open = part.firstIndex(of: "[") {
        guard part.hasSuffix("]"), let number = Int(part[part.index(after: open)..<part.index(before: part.endIndex)]),
          number >= 0
        else { throw IntentMeshError.invalidArgument("malformed key path \"\(keyPath)\"") }
        name = part[..<open]
        index = number
      }
      guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
        throw IntentMeshError.invalidArgument("malformed key path \"\(keyPath)\"")
      }
      return Segment(name: String(name), index: index)
    }
  }
}
