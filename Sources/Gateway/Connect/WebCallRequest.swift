internal import GRPCCore
internal import ProtoJSON
internal import ServiceKit
internal import IntentMeshCore

/// What a Connect or gRPC-Web request asks for, checked in two steps: from its headers, the
/// method, the gRPC metadata and the timeout; from its body, the one binary message it holds. A
/// `ConnectFailure` says what is wrong. Both transports of the web side read requests so: the
/// relay's HTTP/2 streams (`WebCallTranslation`) and HTTP/1.1 (`ConnectResponder`).
struct WebCallRequest {
  let kind: ConnectRequestKind
  let method: ProtoSchema.Method
  /// The request's own headers as gRPC metadata (`-bin` ones decoded).
  let metadata: Metadata
  /// `Connect-Timeout-Ms` (Connect) or `grpc-timeout` (gRPC-Web); nil: none asked.
  let timeout: Duration?

  /// A request to `path` with `headers` (names lowercase), whose content type is of `kind`.
  init(path: String, headers: [(String, String)], kind: ConnectRequestKind, schema: ProtoSchema)
    throws(ConnectFailure)
  {
    let header = { (name: String) in headers.first { $0.0 == name }?.1 }
    guard let method = schema.methods[path] else {
      throw ConnectFailure(code: .unimplemented, message: "\(path): no such method here")
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
    metadata = try ConnectResponder.metadata(headers)
    timeout = try ConnectResponder.timeout(headers: headers, kind: kind)
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
}
