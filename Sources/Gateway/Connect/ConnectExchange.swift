internal import GRPCCore
internal import ProtoJSON
internal import ServiceKit
internal import Synchronization

/// One call's answer written in the protocol the request used: Connect unary (the message, or an
/// error object with the HTTP status of its code), Connect streaming (enveloped messages and an
/// end-of-stream object) or gRPC-Web (frames, trailers in the last). Metadata becomes headers;
/// in unary answers trailing metadata is sent as `trailer-` headers.
struct ConnectExchange<Writer: WebResponseWriter>: Sendable {
  let kind: ConnectRequestKind
  let codec: ProtoJSONCodec
  /// CORS headers for the request's origin, on every answer.
  let cors: [(String, String)]
  let writer: Writer

  /// What has happened so far, for the unary form (which answers only at the end) and to know
  /// whether the head has gone out.
  private final class Progress: Sendable {
    let state = Mutex<(headers: Metadata?, messages: [[UInt8]], headSent: Bool)>((nil, [], false))
  }
  private let progress = Progress()

  init(kind: ConnectRequestKind, codec: ProtoJSONCodec, cors: [(String, String)], writer: Writer) {
    self.kind = kind
    self.codec = codec
    self.cors = cors
    self.writer = writer
  }

  /// Makes the call and writes its answer.
  func run(_ call: ConnectUpstream.Call, upstream: ConnectUpstream) async throws {
    let outputType = call.method.outputType
    let trailers: Metadata
    do {
      trailers = try await upstream.run(
        call,
        onHeaders: { headers in
          progress.state.withLock { $0.headers = headers }
          if case .unary = kind { return }
          try await sendHead(headers)
        },
        onMessage: { message in
          let bytes = try encoded(message, as: outputType)
          if case .unary = kind {
            progress.state.withLock { $0.messages.append(bytes) }
          } else {
            try await writer.body(ConnectEnvelope(flags: 0, payload: bytes).bytes)
          }
        })
    } catch let error as RPCError {
      return try await fail(ConnectFailure(error), trailers: error.metadata)
    }
    try await finish(trailers: trailers)
  }

  private func encoded(_ message: [UInt8], as type: String) throws -> [UInt8] {
    guard kind.codec == .json else { return message }
    do {
      return Array(try codec.decode(message, as: type).text.utf8)
    } catch {
      throw RPCError(code: .internalError, message: "the answer could not be written as JSON: \(error)")
    }
  }

  private func sendHead(_ metadata: Metadata, status: Int = 200, contentType: String? = nil) async throws {
    let alreadySent = progress.state.withLock { state -> Bool in
      defer { state.headSent = true }
      return state.headSent
    }
    guard !alreadySent else { return }
    try await writer.head(
      status: status,
      headers: [("content-type", contentType ?? kind.responseContentType)] + cors
        + ConnectMetadata.headers(of: metadata))
  }

  private func finish(trailers: Metadata) async throws {
    switch kind {
    case .unary:
      let (headers, messages) = progress.state.withLock { ($0.headers ?? Metadata(), $0.messages) }
      guard messages.count == 1 else {
        return try await fail(
          ConnectFailure(code: .internalError, message: "the method answered \(messages.count) messages, not one"),
          trailers: trailers)
      }
      try await writer.respond(
        status: 200,
        headers: [("content-type", kind.responseContentType)] + cors + ConnectMetadata.headers(of: headers)
          + ConnectMetadata.headers(of: trailers, prefix: "trailer-"),
        body: messages[0])
    case .stream:
      try await sendHead(Metadata())
      let end: JSONValue = .object([("metadata", ConnectMetadata.json(of: trailers))])
      try await writer.body(ConnectEnvelope(flags: ConnectEnvelope.endOfStream, payload: Array(end.text.utf8)).bytes)
      try await writer.end()
    case .grpcWeb:
      try await sendHead(Metadata())
      try await writer.body(ConnectMetadata.grpcWebTrailers(code: 0, message: "", trailers: trailers))
      try await writer.end()
    }
  }

  /// Ends the answer with `failure`.
  func fail(_ failure: ConnectFailure, trailers: Metadata) async throws {
    let error = failure.json(codec: codec)
    switch kind {
    case .unary:
      let headers = progress.state.withLock { $0.headers ?? Metadata() }
      try await writer.respond(
        status: ConnectCode.httpStatus(failure.code),
        headers: [("content-type", "application/json")] + cors + ConnectMetadata.headers(of: headers)
          + ConnectMetadata.headers(of: trailers, prefix: "trailer-"),
        body: Array(error.text.utf8))
    case .stream:
      try await sendHead(Metadata())
      let end: JSONValue = .object([("error", error), ("metadata", ConnectMetadata.json(of: trailers))])
      try await writer.body(ConnectEnvelope(flags: ConnectEnvelope.endOfStream, payload: Array(end.text.utf8)).bytes)
      try await writer.end()
    case .grpcWeb:
      try await sendHead(Metadata())
      try await writer.body(
        ConnectMetadata.grpcWebTrailers(
          code: failure.code.rawValue, message: failure.message, trailers: trailers, details: failure.statusDetails))
      try await writer.end()
    }
  }
}

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
    !transportKeys.contains(key) && !key.hasPrefix(":") && !key.hasPrefix("access-control-")
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
