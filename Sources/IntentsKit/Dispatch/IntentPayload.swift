internal import IntentMeshProtos
internal import SwiftProtobuf
internal import IntentMeshCore

/// Unpacks an intent's `google.protobuf.Any` payload into its generated message.
enum IntentPayload {
  /// The payload as `T`. An absent payload is an intent with no parameters given; a payload of
  /// another type or with bytes that do not decode is INVALID_ARGUMENT.
  static func decode<T: SwiftProtobuf.Message>(
    _ type: T.Type, from payload: Google_Protobuf_Any?, intentClass: String
  ) throws -> T {
    guard let payload, !(payload.typeURL.isEmpty && payload.value.isEmpty) else { return T() }
    guard payload.holds(T.self) else {
      let got = payload.typeURL.isEmpty ? "a payload with no type_url" : payload.typeURL
      throw IntentMeshError.invalidPayload(
        "the payload of \(intentClass) must be \(T.protoMessageName) (type.googleapis.com/\(T.protoMessageName)), got \(got)"
      )
    }
    do {
      return try payload.unpacked(as: T.self)
    } catch {
      throw IntentMeshError.invalidPayload(
        "the payload of \(intentClass) does not decode as \(T.protoMessageName): \(error)")
    }
  }
}
