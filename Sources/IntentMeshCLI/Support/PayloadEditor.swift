import Foundation
import IntentMeshProtos
import SwiftProtobuf

/// Edits an intent's payload without compile-time knowledge of its type: through its proto3 JSON,
/// with values built from what the user typed and the parameter's declared value type.
struct PayloadEditor {
  /// The payload's full protobuf name.
  let type: String
  let codec: ProtoJSONCodec
  private(set) var fields: [String: Any]

  init(payloadType: String, payload: Google_Protobuf_Any?, codec: ProtoJSONCodec) throws {
    type = payloadType
    self.codec = codec
    if let payload, !payload.value.isEmpty || !payload.typeURL.isEmpty {
      fields = try codec.decode(payload.value, as: payloadType) as? [String: Any] ?? [:]
    } else {
      fields = [:]
    }
  }

  /// The payload as it stands; fails saying which field is wrong.
  func packed() throws -> Google_Protobuf_Any {
    do {
      return try codec.packed(fields, as: type)
    } catch {
      let json = (try? JSONSerialization.data(withJSONObject: fields)).map { String(decoding: $0, as: UTF8.self) }
      throw CLIError("cannot build \(type) from \(json ?? "\(fields)"): \(error)")
    }
  }

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

  private mutating func set(_ keyPath: String, jsonValue: Any, isArray: Bool, index: Int?, replacing: Bool) throws {
    guard !keyPath.contains(".") else { throw CLIError("set a top-level parameter, not \(keyPath)") }
    if isArray {
      var array = replacing ? [] : (fields[keyPath] as? [Any] ?? [])
      if let index, index < array.count {
        array[index] = jsonValue
      } else {
        array.append(jsonValue)
      }
      fields[keyPath] = array
    } else {
      fields[keyPath] = jsonValue
    }
  }

  /// The JSON value of what the user typed for a parameter of `valueType`.
  static func jsonValue(text: String, valueType: String) throws -> Any {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if trimmed.hasPrefix("{") || trimmed.hasPrefix("[") {
      return try JSONSerialization.jsonObject(with: Data(trimmed.utf8))
    }
    switch valueType {
    case "intentmesh.v1.Person": return ["displayName": trimmed]
    case "intentmesh.v1.SpeakableString": return ["spokenPhrase": trimmed]
    case "intentmesh.v1.Placemark": return ["name": trimmed]
    case "intentmesh.v1.CurrencyAmount": return try currency(trimmed)
    case "google.protobuf.Int32Value":
      if let number = Int(trimmed) { return number }
      return trimmed
    case "google.protobuf.BoolValue": return ["yes", "true", "1"].contains(trimmed.lowercased())
    default: return trimmed
    }
  }

  /// "85 USD", "USD 85.50", "85.5" (USD) → CurrencyAmount JSON, exactly.
  static func currency(_ text: String) throws -> [String: Any] {
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
    return ["currencyCode": code, "units": String(units), "nanos": Int(nanos)]
  }
}
