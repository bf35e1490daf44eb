internal import GRPCCore
internal import ProtoJSON
internal import ServiceKit
internal import IntentMeshCore

/// What a Connect or gRPC-Web request asks for, checked in two steps: from its headers, the
/// method, the gRPC metadata and the timeout; from its body, the one binary message it holds. A
/// `ConnectFailure` says what is wrong. The relay reads web calls so (`WebCallTranslation`), and
/// `WebResponder` says so to a call whose headers fail.
struct WebCallRequest {
  let kind: ConnectRequestKind
  let method: ProtoSchema.Method
  /// The request's own headers as gRPC metadata (`-bin` ones decoded).
  let metadata: Metadata
  /// `Connect-Timeout-Ms` (Connect) or `grpc-timeout` (gRPC-Web); nil: none asked.
  let timeout: Duration?

  /// A request to `path` with `headers` (names lowercase), whose content type is of `kind`;
  /// `viaGet`: a Connect GET, which only methods without side effects take.
  init(path: String, headers: [(String, String)], kind: ConnectRequestKind, schema: ProtoSchema, viaGet: Bool = false)
    throws(ConnectFailure)
  {
    let header = { (name: String) in headers.first { $0.0 == name }?.1 }
    guard let method = schema.methods[path] else {
      throw ConnectFailure(code: .unimplemented, message: "\(path): no such method here")
    }
    if viaGet && !method.noSideEffects {
      throw Self.notForGet(path)
    }
    guard !method.clientStreaming else {
      throw ConnectFailure(code: .unimplemented, message: "\(path) streams requests: call it over gRPC (HTTP/2)")
    }
    if case .unary = kind, method.serverStreaming {
      throw ConnectFailure(
        code: .unimplemented,
        message: "\(path) streams its answer: send application/connect+json or application/connect+proto")
    }
    for name in ["content-encoding", "connect-content-encoding", "grpc-encoding"] {
      if let encoding = header(name), encoding.lowercased() != "identity" {
        throw ConnectFailure(
          code: .unimplemented, message: "\(name) \(encoding) is not supported: send messages uncompressed (identity)")
      }
    }
    if let version = header("connect-protocol-version"), version != "1" {
      throw ConnectFailure(code: .invalidArgument, message: "connect-protocol-version \(version) is not 1")
    }
    self.kind = kind
    self.method = method
    metadata = try Self.metadata(headers)
    timeout = try Self.timeout(headers: headers, kind: kind)
  }

  /// The refusal of a GET of a method that may have side effects (it is not marked
  /// `idempotency_level = NO_SIDE_EFFECTS`): answered 405 with `Allow: POST`.
  static func notForGet(_ path: String) -> ConnectFailure {
    ConnectFailure(
      code: .unimplemented,
      message: "\(path) may have side effects: call it with POST (GET is for NO_SIDE_EFFECTS methods)")
  }

  /// The binary request message in `body` (as the request's content type frames it).
  func message(in body: [UInt8], codec: ProtoJSONCodec) throws(ConnectFailure) -> [UInt8] {
    let message: [UInt8]
    switch kind {
    case .unary:
      message = body
    case .stream, .grpcWeb:
      var framed = body
      if kind.isText {
        guard let decoded = GRPCWebText.decoded(body) else {
          throw ConnectFailure(code: .invalidArgument, message: "the request is not base64 (application/grpc-web-text)")
        }
        framed = decoded
      }
      guard let envelopes = ConnectEnvelope.split(framed), envelopes.count == 1 else {
        throw ConnectFailure(code: .invalidArgument, message: "the request is not one whole enveloped message")
      }
      guard envelopes[0].flags & ConnectEnvelope.compressed == 0 else {
        throw ConnectFailure(code: .unimplemented, message: "compressed messages are not accepted")
      }
      message = envelopes[0].payload
    }
    guard kind.codec == .json else { return message }
    do {
      return try codec.encode(
        try JSONReader.read(message.isEmpty ? Array("{}".utf8) : message), as: method.inputType)
    } catch {
      throw ConnectFailure(code: .invalidArgument, message: "\(method.inputType): \(error)")
    }
  }

  /// Headers that are the transport's or the protocol's, never forwarded as gRPC metadata.
  static let unforwarded: Set<String> = [
    "host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "content-type", "content-length",
    "content-encoding", "accept-encoding", "accept", "accept-language", "user-agent", "origin", "referer", "cookie",
    "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding", "connect-accept-encoding",
    "grpc-timeout", "grpc-encoding", "grpc-accept-encoding", "x-grpc-web", "x-user-agent", "pragma",
    "cache-control", "priority", "dnt",
  ]

  /// The request's own headers as gRPC metadata (`-bin` ones base64-decoded).
  static func metadata(_ headers: [(String, String)]) throws(ConnectFailure) -> Metadata {
    var metadata = Metadata()
    for (name, value) in headers
    where !unforwarded.contains(name) && !name.hasPrefix(":") && !name.hasPrefix("sec-") && !name.hasPrefix("grpc-") {
      if name.hasSuffix("-bin") {
        for piece in value.split(separator: ",") {
          guard let decoded = ProtoJSONCodec.base64Decoded(piece.trimmingWhitespace()) else {
            throw ConnectFailure(code: .invalidArgument, message: "\(name) is not base64")
          }
          metadata.addBinary(decoded, forKey: name)
        }
      } else {
        metadata.addString(value, forKey: name)
      }
    }
    return metadata
  }

  /// The call's timeout from request headers (names lowercase).
  static func timeout(headers: [(String, String)], kind: ConnectRequestKind) throws(ConnectFailure) -> Duration? {
    let header = { (name: String) in headers.first { $0.0 == name }?.1 }
    if case .grpcWeb = kind {
      guard let text = header("grpc-timeout") else { return nil }
      guard let timeout = GRPCTimeout.parse(text) else {
        throw ConnectFailure(code: .invalidArgument, message: "grpc-timeout \(text) is not a gRPC timeout")
      }
      return timeout
    }
    guard let text = header("connect-timeout-ms") else { return nil }
    guard text.count <= 10, let milliseconds = Int64(text), milliseconds >= 0 else {
      throw ConnectFailure(code: .invalidArgument, message: "connect-timeout-ms \(text) is not 1 to 10 digits")
    }
    return .milliseconds(milliseconds)
  }
}
