internal import GRPCCore
internal import ServiceKit
internal import IntentMeshCore

/// Answers the gateway's web requests: the Connect protocol (unary JSON or binary, server streams
/// in Connect's envelopes) and gRPC-Web, for every method the gateway serves or relays, each made
/// as a gRPC call (`ConnectUpstream`) with messages converted by the gateway's descriptors
/// (`ProtoJSONCodec`); CORS preflights for configured origins. The transport that read the
/// request (HTTP/1.1 or an HTTP/2 stream) writes the answer.
final class ConnectResponder: Sendable {
  private let upstream: ConnectUpstream
  private let schema: @Sendable () -> ProtoSchema
  let cors: CORSPolicy
  /// The largest request body taken (the gateway's `--max-message-bytes`, plus framing).
  let maxBodyBytes: Int

  private let pages: WebPages
  private let devTokens: DevTokens?
  /// Web calls being answered now, all connections together and each user's: each holds a stream on
  /// a connection the gateway shares (to its own server, or a domain's), which takes 1,000; past a
  /// budget, `resource_exhausted`.
  let calls: WebCallBudget
  /// Who a call is for, to count it against its user's share: the gateway's verifier (cached).
  private let verifier: TokenVerifier?
  /// Bytes of request bodies being read or answered now, all connections together.
  let bodyBudget: ByteBudget

  init(
    upstream: ConnectUpstream, schema: @escaping @Sendable () -> ProtoSchema, cors: CORSPolicy, maxMessageBytes: Int,
    pages: WebPages = WebPages(), devTokens: DevTokens? = nil, verifier: TokenVerifier? = nil,
    calls: WebCallBudget = WebCallBudget()
  ) {
    self.pages = pages
    self.devTokens = devTokens
    self.verifier = verifier
    self.calls = calls
    self.bodyBudget = ByteBudget(limit: 64 << 20)
    self.upstream = upstream
    self.schema = schema
    self.cors = cors
    self.maxBodyBytes = maxMessageBytes + 5
  }

  /// Headers that are the transport's or the protocol's, never forwarded as gRPC metadata.
  static let unforwarded: Set<String> = [
    "host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "content-type", "content-length",
    "content-encoding", "accept-encoding", "accept", "accept-language", "user-agent", "origin", "referer", "cookie",
    "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding", "connect-accept-encoding",
    "grpc-timeout", "grpc-encoding", "grpc-accept-encoding", "x-grpc-web", "x-user-agent", "pragma",
    "cache-control", "priority", "dnt",
  ]

  func respond(_ request: WebRequest, writer: some WebResponseWriter) async throws {
    let origin = request.header("origin")
    let corsHeaders = cors.responseHeaders(origin: origin)
    switch request.method {
    case "OPTIONS":
      guard
        let allowed = cors.preflight(
          origin: origin, method: request.header("access-control-request-method"),
          headers: request.header("access-control-request-headers"))
      else { return try await plain(403, "this origin may not call the gateway (--cors-origin)", writer) }
      try await writer.head(status: 204, headers: allowed)
      try await writer.end()
    case "POST" where request.path == "/dev/token" && devTokens != nil:
      guard DevTokens.isFromThisMachine(request) else {
        return try await plain(403, "development tokens are for pages on this machine's loopback address", writer)
      }
      guard devTokens!.admits(request) else {
        return try await plain(
          403,
          "development tokens are for the person who started the stack: open the web app at the address `intentmesh up` printed (it ends in #dev=…)",
          writer)
      }
      let (status, json) = devTokens!.answer(request.body)
      try await writer.respond(
        status: status, headers: [("content-type", "application/json"), ("cache-control", "no-store")],
        body: Array(json.text.utf8))
    case "POST":
      try await call(request, cors: corsHeaders, writer: writer)
    case "GET", "HEAD":
      try await page(request, writer: writer)
    default:
      try await plain(405, "not allowed: \(request.method) \(request.path)", writer)
    }
  }

  /// A file of the web app; 304 when the browser has it already.
  private func page(_ request: WebRequest, writer: some WebResponseWriter) async throws {
    guard let page = pages.page(for: request.path) else {
      return try await plain(404, "not found: \(request.path)", writer)
    }
    if let etag = page.etag, request.header("if-none-match") == etag {
      try await writer.head(status: 304, headers: [("etag", etag)] + WebPages.securityHeaders)
      return try await writer.end()
    }
    let headers =
      [("content-type", page.contentType), ("etag", page.etag ?? "")].filter { !$0.1.isEmpty }
      + WebPages.securityHeaders
    if request.method == "HEAD" {
      try await writer.head(status: 200, headers: headers + [("content-length", "\(page.body.count)")])
      return try await writer.end()
    }
    try await writer.respond(status: 200, headers: headers, body: page.body)
  }

  private func plain(_ status: Int, _ text: String, _ writer: some WebResponseWriter) async throws {
    let body = Array((text + "\n").utf8)
    try await writer.head(
      status: status,
      headers: [
        ("content-type", "text/plain; charset=utf-8"), ("content-length", "\(body.count)"),
        ("x-content-type-options", "nosniff"),
      ])
    try await writer.body(body)
    try await writer.end()
  }

  // MARK: - Calls

  private func call(_ request: WebRequest, cors: [(String, String)], writer: some WebResponseWriter) async throws {
    let schema = schema()
    let streaming = schema.methods[request.path]?.serverStreaming ?? false
    let user = await user(of: request)
    do {
      try calls.acquire(user: user, streaming: streaming)
    } catch {
      let kind = request.header("content-type").flatMap(ConnectRequestKind.init(contentType:))
      let (status, contentType, body) = ConnectFailure(code: .resourceExhausted, message: error.message).answer(
        kind: kind, codec: nil)
      return try await writer.respond(status: status, headers: [("content-type", contentType)] + cors, body: body)
    }
    defer { calls.release(user: user, streaming: streaming) }
    guard let kind = request.header("content-type").flatMap(ConnectRequestKind.init(contentType:)) else {
      let body = Array("unsupported content type; this endpoint takes \(ConnectRequestKind.accepted)\n".utf8)
      return try await writer.respond(
        status: 415,
        headers: cors + [
          ("accept-post", ConnectRequestKind.accepted), ("content-type", "text/plain; charset=utf-8"),
        ], body: body)
    }
    let codec = ProtoJSONCodec(schema: schema)
    let exchange = ConnectExchange(kind: kind, codec: codec, cors: cors, writer: writer)
    do {
      let call = try prepare(request, kind: kind, schema: schema, codec: codec)
      try await exchange.run(call, upstream: upstream)
    } catch let failure as ConnectFailure {
      try await exchange.fail(failure, trailers: Metadata())
    }
  }

  /// The user whose share a call counts against: its bearer token's verified subject, or the
  /// anonymous user's when it has none that verifies (the call itself then fails as gRPC says).
  private func user(of request: WebRequest) async -> UserKey {
    guard let verifier, let header = request.header("authorization"),
      let token = try? BearerCredential.token(inHeader: header), let caller = try? await verifier.verify(token)
    else { return UserKey("") }
    return UserKey(caller.subject)
  }

  /// The gRPC call a request asks for; a `ConnectFailure` says what is wrong with it.
  func prepare(_ request: WebRequest, kind: ConnectRequestKind, schema: ProtoSchema, codec: ProtoJSONCodec) throws
    -> ConnectUpstream.Call
  {
    guard let method = schema.methods[request.path] else {
      throw ConnectFailure(code: .unimplemented, message: "\(request.path): no such method here")
    }
    guard !method.clientStreaming else {
      throw ConnectFailure(
        code: .unimplemented, message: "\(request.path) streams requests: call it over gRPC (HTTP/2)")
    }
    if case .unary = kind, method.serverStreaming {
      throw ConnectFailure(
        code: .unimplemented,
        message: "\(request.path) streams its answer: send application/connect+json or application/connect+proto")
    }
    for name in ["content-encoding", "connect-content-encoding", "grpc-encoding"] {
      if let encoding = request.header(name), encoding.lowercased() != "identity" {
        throw ConnectFailure(
          code: .unimplemented, message: "\(name) \(encoding) is not supported: send messages uncompressed (identity)")
      }
    }
    if let version = request.header("connect-protocol-version"), version != "1" {
      throw ConnectFailure(code: .invalidArgument, message: "connect-protocol-version \(version) is not 1")
    }
    let message: [UInt8]
    switch kind {
    case .unary:
      message = request.body
    case .stream, .grpcWeb:
      guard let envelopes = ConnectEnvelope.split(request.body), envelopes.count == 1 else {
        throw ConnectFailure(code: .invalidArgument, message: "the request is not one whole enveloped message")
      }
      guard envelopes[0].flags & ConnectEnvelope.compressed == 0 else {
        throw ConnectFailure(code: .unimplemented, message: "compressed messages are not accepted")
      }
      message = envelopes[0].payload
    }
    let binary: [UInt8]
    if kind.codec == .json {
      do {
        binary = try codec.encode(
          try JSONReader.read(message.isEmpty ? Array("{}".utf8) : message), as: method.inputType)
      } catch {
        throw ConnectFailure(code: .invalidArgument, message: "\(method.inputType): \(error)")
      }
    } else {
      binary = message
    }
    return ConnectUpstream.Call(
      path: request.path, method: method, request: binary, metadata: try Self.metadata(request.headers),
      timeout: try Self.timeout(request, kind: kind))
  }

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

  /// The call's timeout: `Connect-Timeout-Ms` (Connect) or `grpc-timeout` (gRPC-Web).
  static func timeout(_ request: WebRequest, kind: ConnectRequestKind) throws(ConnectFailure) -> Duration? {
    if case .grpcWeb = kind {
      guard let text = request.header("grpc-timeout") else { return nil }
      guard let timeout = GRPCTimeout.parse(text) else {
        throw ConnectFailure(code: .invalidArgument, message: "grpc-timeout \(text) is not a gRPC timeout")
      }
      return timeout
    }
    guard let text = request.header("connect-timeout-ms") else { return nil }
    guard text.count <= 10, let milliseconds = Int64(text), milliseconds >= 0 else {
      throw ConnectFailure(code: .invalidArgument, message: "connect-timeout-ms \(text) is not 1 to 10 digits")
    }
    return .milliseconds(milliseconds)
  }
}

extension WebResponseWriter {
  /// A whole answer at once.
  func respond(status: Int, headers: [(String, String)], body: [UInt8]) async throws {
    try await head(status: status, headers: headers + [("content-length", "\(body.count)")])
    if !body.isEmpty { try await self.body(body) }
    try await end()
  }
}
