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
  /// The value as the user agrees to it when asked for a yes: without what may change while the
  /// question waits and is not what the user agreed to (an account's balance, a contact's photo).
  /// A confirmation binds this form (`agreedBytes`); the value itself by default.
  var agreedForm: Self { get }
  /// The agreed form's bytes, the same for the same value on every replica: deterministic
  /// protobuf encoding for messages, the raw value for enums, UTF-8 for strings.
  func agreedBytes() throws -> [UInt8]
}

extension ParameterValue {
  package var agreedForm: Self { self }
}

extension ParameterValue where Self: SwiftProtobuf.Message {
  package func packed() throws -> Google_Protobuf_Any { try .packing(self) }

  package static func unpacked(from any: Google_Protobuf_Any) throws -> Self {
    try Self(unpackingAny: any)
  }

  package var isAbsent: Bool { self.isEqualTo(message: Self()) }

  package static var valueTypeName: String { Self.protoMessageName }

  package func agreedBytes() throws -> [UInt8] {
    var options = BinaryEncodingOptions()
    options.useDeterministicOrdering = true
    return try agreedForm.serializedBytes(options: options)
  }
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

  package func agreedBytes() throws -> [UInt8] { AgreedBytes.integer(Int64(agreedForm.rawValue)) }

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
  package func agreedBytes() throws -> [UInt8] { Array(agreedForm.utf8) }
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
  package func agreedBytes() throws -> [UInt8] { AgreedBytes.integer(Int64(agreedForm)) }
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
  package func agreedBytes() throws -> [UInt8] { [agreedForm ? 1 : 0] }
  package static var valueTypeName: String { Google_Protobuf_BoolValue.protoMessageName }
}

extension Intentmesh_V1_Person: ParameterValue {
  package var displayText: String {
    if !displayName.isEmpty { return displayName }
    let parts = [nameComponents.givenName, nameComponents.familyName].filter { !$0.isEmpty }
    if !parts.isEmpty { return parts.joined(separator: " ") }
    return personHandle.value
  }

  /// Who the person is — handle, names, identifiers — without their picture: a contact's new photo
  /// is not a new payee or recipient.
  package var agreedForm: Self {
    guard hasImage else { return self }
    var agreed = self
    agreed.clearImage()
    return agreed
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

/// Fixed-width encodings for agreed values (`ParameterValue.agreedBytes`).
package enum AgreedBytes {
  /// `value` as 8 bytes, big-endian.
  package static func integer(_ value: Int64) -> [UInt8] {
    withUnsafeBytes(of: value.bigEndian) { Array($0) }
  }
}
