internal import SwiftProtobuf

extension Google_Protobuf_Any {
  /// `message` packed as its encoded bytes. `Google_Protobuf_Any(message:)` keeps the message and
  /// encodes it again each time the Any is sized or written — twice for every response that carries
  /// it; these bytes are encoded once. The wire is the same.
  static func packing(_ message: some SwiftProtobuf.Message) throws -> Google_Protobuf_Any {
    var any = Google_Protobuf_Any()
    any.typeURL = "type.googleapis.com/" + type(of: message).protoMessageName
    any.value = try message.serializedBytes()
    return any
  }
}
