package import IntentMeshProtos
package import SwiftProtobuf
internal import IntentMeshCore

/// A value an intent parameter can hold: it travels in a `google.protobuf.Any`, knows when it is
/// absent, and has a text a host can show or speak.
package protocol ParameterValue: Sendable {
  /// Packs the value for the wire.
  func packed() throws -> Google_Protobuf_Any
  /// Unpacks a value the client sent back (a picked disambiguation option, say).
  static func unpacked(from any: Google_Protobuf_Any) throws -> Self
  /// True when the client gave no value (proto3 default).
  var isAbsent: Bool { get }
  /// How a host shows or speaks the value.
  var displayText: String { get }
  /// Full protobuf name of the value's wire type, for manifests.
  static var valueTypeName: String { get }
}

extension ParameterValue where Self: SwiftProtobuf.Message {
  package func packed() throws -> Google_Protobuf_Any { try .packing(self) }

  package static func unpacked(from any: Google_Protobuf_Any) throws -> Self {
    try Self(unpackingAny: any)
  }

  package var isAbsent: Bool { self.isEqualTo(message: Self()) }

  package static var valueTypeName: String { Self.protoMessageName }
}

extension ParameterValue where Self: SwiftProtobuf.Enum {
  package func packed() throws -> Google_Protobuf_Any {
    try .packing(Google_Protobuf_Int32Value(Int32(self.rawValue)))
  }

  package static func unpacked(from any: Google_Protobuf_Any) throws -> Self {
    let wrapper = try Google_Protobuf_Int32Value(unpackingAny: any)
    return Self(rawValue: Int(wrapper.value)) ?? Self()
  }

  package var isAbsent: Bool { self.rawValue == 0 }

  /// SiriKit's name of the case: the Swift case name of the generated enum ("contact", "read").
  package var displayText: String { EnumCaseName.of(self) }

  package static var valueTypeName: String { Google_Protobuf_Int32Value.protoMessageName }
}

extension String: ParameterValue {
  package func packed() throws -> Google_Protobuf_Any {
    try .packing(Google_Protobuf_StringValue(self))
  }

  package static func unpacked(from any: Google_Protobuf_Any) throws -> String {
    try Google_Protobuf_StringValue(unpackingAny: any).value
  }

  package var isAbsent: Bool { self.isEmpty }
  package var displayText: String { self }
  package static var valueTypeName: String { Google_Protobuf_StringValue.protoMessageName }
}

extension Int32: ParameterValue {
  package func packed() throws -> Google_Protobuf_Any {
    try .packing(Google_Protobuf_Int32Value(self))
  }

  package static func unpacked(from any: Google_Protobuf_Any) throws -> Int32 {
    try Google_Protobuf_Int32Value(unpackingAny: any).value
  }

  package var isAbsent: Bool { false }
  package var displayText: String { String(self) }
  package static var valueTypeName: String { Google_Protobuf_Int32Value.protoMessageName }
}

extension Bool: ParameterValue {
  package func packed() throws -> Google_Protobuf_Any {
    try .packing(Google_Protobuf_BoolValue(self))
  }

  package static func unpacked(from any: Google_Protobuf_Any) throws -> Bool {
    try Google_Protobuf_BoolValue(unpackingAny: any).value
  }

  package var isAbsent: Bool { false }
  package var displayText: String { self ? "yes" : "no" }
  package static var valueTypeName: String { Google_Protobuf_BoolValue.protoMessageName }
}

extension Intentmesh_V1_Person: ParameterValue {
  package var displayText: String {
    if !displayName.isEmpty { return displayName }
    let parts = [nameComponents.givenName, nameComponents.familyName].filter { !$0.isEmpty }
    if !parts.isEmpty { return parts.joined(separator: " ") }
    return personHandle.value
  }
}

extension Intentmesh_V1_SpeakableString: ParameterValue {
  package var displayText: String { spokenPhrase }
}

extension Intentmesh_V1_CurrencyAmount: ParameterValue {
  package var displayText: String { DisplayText.currency(self) }
}

extension Intentmesh_V1_DateComponentsRange: ParameterValue {
  package var displayText: String { DisplayText.dateRange(self) }
}

extension Intentmesh_V1_Placemark: ParameterValue {
  package var displayText: String {
    if !name.isEmpty { return name }
    return [thoroughfare, locality].filter { !$0.isEmpty }.joined(separator: ", ")
  }
}

extension Intentmesh_V1_PaymentMethod: ParameterValue {
  package var displayText: String {
    identificationHint.isEmpty ? name : "\(name) ••\(identificationHint)"
  }
}

extension Intentmesh_V1_Person {
  /// The name a person is asked for by: display name, given and family name, nickname, or handle.
  package var spokenName: String {
    if !displayName.isEmpty { return displayName }
    let parts = [nameComponents.givenName, nameComponents.familyName].filter { !$0.isEmpty }
    if !parts.isEmpty { return parts.joined(separator: " ") }
    if !nameComponents.nickname.isEmpty { return nameComponents.nickname }
    return personHandle.value
  }
}
