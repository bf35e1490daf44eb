import Foundation
import IntentMeshProtos
import ProtoJSON
import ServiceKit
import SwiftProtobuf

/// Edits an intent's payload without compile-time knowledge of its type: through its proto3 JSON,
/// with values built from what the user typed and the parameter's declared value type.
struct PayloadEditor {
  /// The payload's full protobuf name.
  let type: String
  let codec: ProtoJSONCodec
  private(set) var fields: [String: JSONValue]

  init(payloadType: String, payload: Google_Protobuf_Any?, codec: ProtoJSONCodec) throws {
    type = payloadType
    self.codec = codec
    if let payload, !payload.value.isEmpty || !payload.typeURL.isEmpty {
      fields = Dictionary(
        (try codec.decode(payload.value, as: payloadType).members ?? []), uniquingKeysWith: { _, last in last })
    } else {
      fields = [:]
    }
  }

  /// The payload as it stands; fails saying which field is wrong.
  func packed() throws -> Google_Protobuf_Any {
    do {
      return try codec.packed(object, as: type)
    } catch {
      throw CLIError("cannot build \(type) from \(object.text): \(error)")
    }
  }

  /// The payload's fields as one JSON object, in name order.
  var object: JSONValue { .object(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }) }

  /// Sets `keyPath` from text; appends for array parameters unless `replacing` or `index` is given.
  mutating func set(
    _ keyPath: String, text: String, declaration: Intentmesh_V1_ParameterDeclaration?, index: Int? = nil,
    replacing: Bool = false
  ) throws {
    let value = try Self.jsonValue(text: text, valueType: declaration?.valueType ?? "")
    try set(keyPath, jsonValue: value, isArray: declaration?.isArray ?? false, index: index, replacing: replacing)
  }

  /// Sets `keyPath` to a value the service offered (a disambiguation option, say).
  mutating func set(
    _ keyPath: String, option: Google_Protobuf_Any, isArray: Bool, index: Int? = nil, replacing: Bool = false
  ) throws {
    // Wrappers (StringValue, Int32Value) are plain JSON values; messages are objects.
    let value = try codec.decode(option.value, as: String(option.typeURL.split(separator: "/").last ?? ""))
    try set(keyPath, jsonValue: value, isArray: isArray, index: index, replacing: replacing)
  }

  /// Removes `keyPath`.
  mutating func clear(_ keyPath: String) {
    fields.removeValue(forKey: keyPath)
  }

  private mutating func set(_ keyPath: String, jsonValue: JSONValue, isArray: Bool, index: Int?, replacing: Bool) throws
  {
    guard !keyPath.contains(".") else { throw CLIError("set a top-level parameter, not \(keyPath)") }
    if isArray {
      var array: [JSONValue] = []
      if !replacing, case .array(let earlier)? = fields[keyPath] { array = earlier }
      if let index, index < array.count {
        array[index] = jsonValue
      } else {
        array.append(jsonValue)
      }
      fields[keyPath] = .array(array)
    } else {
      fields[keyPath] = jsonValue
    }
  }

  /// The JSON value of what the user typed for a parameter of `valueType`.
  static func jsonValue(text: String, valueType: String) throws -> JSONValue {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
      return try JSONReader.read(trimmed)
    }
    switch valueType {
    case "intentmesh.v1.Person": return .object([("displayName", .string(trimmed))])
    case "intentmesh.v1.SpeakableString": return .object([("spokenPhrase", .string(trimmed))])
    case "intentmesh.v1.Placemark": return .object([("name", .string(trimmed))])
    case "intentmesh.v1.CurrencyAmount": return try currency(trimmed)
    case "google.protobuf.Int32Value":
      if let number = Int(trimmed) { return .integer(number) }
      return .string(trimmed)
    case "google.protobuf.BoolValue": return .bool(["yes", "true", "1"].contains(trimmed.lowercased()))
    default: return .string(trimmed)
    }
  }

  /// "85 USD", "USD 85.50", "85.5" (USD) → CurrencyAmount JSON, exactly.
  static func currency(_ text: String) throws -> JSONValue {
    let parts = text.split(separator: " ").map(String.init)
    let code = parts.first { $0.count == 3 && $0.allSatisfy(\.isLetter) }?.uppercased() ?? "USD"
    guard let number = parts.first(where: { $0.first?.isNumber == true || $0.first == "-" }) else {
      throw CLIError("\"\(text)\" is not an amount such as \"85 USD\"")
    }
    let pieces = number.split(separator: ".", omittingEmptySubsequences: false)
    guard pieces.count <= 2, let units = Int64(pieces[0]) else { throw CLIError("\"\(number)\" is not a number") }
    var nanos: Int32 = 0
    if pieces.count == 2 {
      let fraction = String(pieces[1].prefix(9))
      guard let digits = Int32(fraction.padding(toLength: 9, withPad: "0", startingAt: 0)) else {
        throw CLIError("\"\(number)\" is not a number")
      }
      nanos = number.hasPrefix("-") ? -digits : digits
    }
    return .object([("currencyCode", .string(code)), ("units", .string(String(units))), ("nanos", .integer(nanos))])
  }
}
