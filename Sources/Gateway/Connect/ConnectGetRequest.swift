internal import GRPCCore
internal import ProtoJSON

/// A Connect unary call made with GET, as the protocol allows for methods marked
/// `idempotency_level = NO_SIDE_EFFECTS` (and connect-es sends with `useHttpGet`), so that caches
/// and CDNs can keep their answers: `GET /pkg.Service/Method?connect=v1&encoding=json&message=…`,
/// the message percent-encoded, or base64url-encoded with `base64=1`. Answered as the POST form is.
struct ConnectGetRequest: Equatable {
  /// The method's path, without the query.
  let path: String
  let codec: ConnectRequestKind.Codec
  /// The request message as the codec has it (JSON text or protobuf bytes).
  let message: [UInt8]

  /// The call a GET of `target` (a request line's path and query) makes; nil when it is no Connect
  /// call (no query with `message` and `encoding`: a page). Throws when it is one, but malformed.
  static func parse(_ target: String) throws(ConnectFailure) -> ConnectGetRequest? {
    guard let mark = target.firstIndex(of: "?") else { return nil }
    let path = String(target[..<mark])
    var parameters: [String: String] = [:]
    for pair in target[target.index(after: mark)...].split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = percentDecoded(parts[0]).flatMap({ String(validating: $0, as: UTF8.self) }) else {
        throw ConnectFailure(code: .invalidArgument, message: "the query is not percent-encoded UTF-8")
      }
      let value = parts.count > 1 ? String(parts[1]) : ""
      guard parameters[name] == nil else {
        throw ConnectFailure(code: .invalidArgument, message: "query parameter \(name) is given twice")
      }
      parameters[name] = value
    }
    guard let rawMessage = parameters["message"], let encoding = parameters["encoding"] else { return nil }
    if let version = parameters["connect"], version != "v1" {
      throw ConnectFailure(code: .invalidArgument, message: "connect=\(version) is not v1")
    }
    let codec: ConnectRequestKind.Codec
    switch encoding {
    case "json": codec = .json
    case "proto": codec = .proto
    default: throw ConnectFailure(code: .invalidArgument, message: "encoding=\(encoding): take json or proto")
    }
    if let compression = parameters["compression"], compression != "identity" {
      throw ConnectFailure(
        code: .unimplemented, message: "compression=\(compression) is not supported: send the message uncompressed")
    }
    guard let decoded = percentDecoded(Substring(rawMessage)) else {
      throw ConnectFailure(code: .invalidArgument, message: "message is not percent-encoded")
    }
    var message = decoded
    if parameters["base64"] == "1" {
      guard let bytes = base64URLDecoded(decoded) else {
        throw ConnectFailure(code: .invalidArgument, message: "message is not base64url (base64=1)")
      }
      message = bytes
    }
    return ConnectGetRequest(path: path, codec: codec, message: message)
  }

  /// The bytes a percent-encoded query component stands for ('+' is a space, as forms write it).
  static func percentDecoded(_ text: Substring) -> [UInt8]? {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      switch byte {
      case UInt8(ascii: "%"):
        guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
          return nil
        }
        bytes.append(high << 4 | low)
      case UInt8(ascii: "+"):
        bytes.append(UInt8(ascii: " "))
      default:
        bytes.append(byte)
      }
    }
    return bytes
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }

  /// Base64url, padded or not (standard base64's alphabet taken too).
  private static func base64URLDecoded(_ bytes: [UInt8]) -> [UInt8]? {
    var text = String(decoding: bytes, as: UTF8.self).replacing("-", with: "+").replacing("_", with: "/")
    while text.utf8.count % 4 != 0 { text += "=" }
    return ProtoJSONCodec.base64Decoded(text)
  }
}
