internal import GRPCCore
internal import ProtoJSON
internal import ServiceKit

/// gRPC metadata written the ways the web protocols carry it.
enum ConnectMetadata {
  /// Metadata that is the transport's own, never repeated as headers.
  static let transportKeys: Set<String> = [
    "content-type", "content-length", "content-encoding", "content-security-policy", "grpc-status", "grpc-message",
    "grpc-status-details-bin", "te", "grpc-encoding", "grpc-accept-encoding", "connection", "keep-alive",
    "transfer-encoding", "upgrade", "set-cookie", "strict-transport-security", "x-frame-options", "location",
  ]

  /// Whether an upstream's metadata key may become a response header: not the transport's, and not
  /// one that would change what the browser allows (CORS, cookies, security policies).
  static func isForwarded(_ key: String) -> Bool {
    !transportKeys.contains(key) && !key.hasPrefix(":") && !key.hasPrefix("access-control-") && isFieldName(key)
  }

  /// Visible ASCII only, as an HTTP field name is. A client's names are checked as they arrive
  /// (`HeaderListCheck`); an upstream's answer may hold any bytes its HPACK encoder wrote, and one
  /// the relay cannot write again is left out, not written (NIOHPACK traps on such a name).
  private static func isFieldName(_ key: String) -> Bool {
    !key.isEmpty && key.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
  }

  /// Metadata as HTTP headers: binary values base64-encoded.
  static func headers(of metadata: Metadata, prefix: String = "") -> [(String, String)] {
    metadata.compactMap { entry -> (String, String)? in
      guard isForwarded(entry.key) else { return nil }
      switch entry.value {
      case .string(let text): return (prefix + entry.key, text)
      case .binary(let bytes): return (prefix + entry.key, ProtoJSONCodec.base64(bytes))
      }
    }
  }

  /// Metadata as Connect's end-of-stream object writes it: each key with its list of values.
  static func json(of metadata: Metadata) -> JSONValue {
    json(of: headers(of: metadata))
  }

  /// Header lines (forwarded ones only) as Connect's end-of-stream object writes them.
  static func json(of lines: [(String, String)]) -> JSONValue {
    var members: [(String, JSONValue)] = []
    for (key, value) in lines {
      if let index = members.firstIndex(where: { $0.0 == key }), case .array(let values) = members[index].1 {
        members[index].1 = .array(values + [.string(value)])
      } else {
        members.append((key, .array([.string(value)])))
      }
    }
    return .object(members)
  }

  /// gRPC-Web's trailers frame: status, message (percent-encoded as gRPC sends it) and trailers as
  /// HTTP/1 header lines.
  static func grpcWebTrailers(code: Int, message: String, trailers: Metadata, details: [UInt8]? = nil) -> [UInt8] {
    grpcWebTrailers(code: code, message: message, lines: headers(of: trailers), details: details)
  }

  /// gRPC-Web's trailers frame with trailer lines already written as headers (forwarded ones only).
  static func grpcWebTrailers(code: Int, message: String, lines trailers: [(String, String)], details: [UInt8]? = nil)
    -> [UInt8]
  {
    var lines = "grpc-status:\(code)\r\n"
    if !message.isEmpty { lines += "grpc-message:\(percentEncoded(message))\r\n" }
    if let details { lines += "grpc-status-details-bin:\(ProtoJSONCodec.base64(details))\r\n" }
    for (key, value) in trailers { lines += "\(key):\(value)\r\n" }
    return ConnectEnvelope(flags: ConnectEnvelope.trailers, payload: Array(lines.utf8)).bytes
  }

  /// gRPC's `grpc-message` as sent (percent-encoded) back to its text; malformed escapes stay as they are.
  static func percentDecoded(_ text: String) -> String {
    guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
    var bytes: [UInt8] = []
    var utf8 = Array(text.utf8)[...]
    while let byte = utf8.popFirst() {
      if byte == UInt8(ascii: "%"), utf8.count >= 2,
        let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
      {
        bytes.append(value)
        utf8 = utf8.dropFirst(2)
      } else {
        bytes.append(byte)
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// gRPC's percent-encoding of `grpc-message`: printable ASCII but `%` as is, the rest as %XX.
  static func percentEncoded(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      if (0x20...0x7e).contains(byte), byte != UInt8(ascii: "%") {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        let hex = String(byte, radix: 16, uppercase: true)
        out += "%" + (hex.count == 1 ? "0" + hex : hex)
      }
    }
    return out
  }
}
