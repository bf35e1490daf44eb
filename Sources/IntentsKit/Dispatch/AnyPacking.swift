internal import IntentMeshCore
internal import SwiftProtobuf

extension Google_Protobuf_Any {
  /// `message` packed as its encoded bytes. `Google_Protobuf_Any(message:)` keeps the message and
  /// encodes it again each time the Any is sized or written — twice for every response that carries
  /// it; these bytes are encoded once, each nested message sized once (`encodedBytes()`). The wire
  /// is the same.
  static func packing(_ message: some SwiftProtobuf.Message) throws -> Google_Protobuf_Any {
    var any = Google_Protobuf_Any()
    any.typeURL = "type.googleapis.com/" + type(of: message).protoMessageName
    any.value = try message.encodedBytes()
    return any
  }

  /// Whether the Any holds a `M`: the last segment of its type URL is `M`'s full name, as
  /// `isA(_:)` decides, compared in place (`isA` walks the URL by Characters and copies the name
  /// out, twice per unpack; a substring's UTF-8 view, from here unspecialized, ~100 instructions a
  /// byte). A full name has no "/", so the URL's last segment is the name exactly when the URL ends
  /// with it, right after a "/" or alone.
  func holds<M: SwiftProtobuf.Message>(_ type: M.Type) -> Bool {
    var url = typeURL
    var name = M.protoMessageName
    return url.withUTF8 { url in
      name.withUTF8 { name in
        guard url.count >= name.count else { return false }
        let start = url.count - name.count
        guard start == 0 || url[start - 1] == UInt8(ascii: "/") else { return false }
        return UnsafeBufferPointer(rebasing: url[start...]).elementsEqual(name)
      }
    }
  }

  /// The held message as `M`, decoded from the held bytes; `holds(M.self)` must be true. Like
  /// `M(unpackingAny:)`, missing required fields are allowed (`partial`).
  func unpacked<M: SwiftProtobuf.Message>(as type: M.Type) throws -> M {
    try M(serializedBytes: value, partial: true)
  }
}
