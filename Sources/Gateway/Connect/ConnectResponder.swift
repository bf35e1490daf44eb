internal import GRPCCore
internal import ProtoJSON
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

  /// The messages and methods calls are read and answered by now.
  func currentSchema() -> ProtoSchema { schema() }

  /// Headers that are the transport's or the protocol's, never forwarded as gRPC metadata.
  static let unforwarded: Set<String> = [
    "host", "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "content-type", "content-length",
    "content-encoding", "accept-encoding", "accept", "accept-language", "user-agent", "origin", "referer", "cookie",
    "connect-protocol-version", "connect-timeout-ms", "connect-content-encoding", "connect-accept-encoding",
    "grpc-timeout", "grpc-encoding", "grpc-accept-encoding", "x-grpc-web", "x-user-agent", "pragma",
    "cache-control", "priority", "dnt",
  ]

  /// How a request is answered: at once, or by a call of `kind`.
  enum Reply {
    case answer(WebAnswer)
    case call(ConnectRequestKind)
  }

  /// What answers `request`: a preflight, a development token, a page or a refusal at once, or
  /// (a POST of a web content type) a call. Synchronous: the relay answers its HTTP/2 streams so.
  func reply(to request: WebRequest) -> Reply {
    let origin = request.header("origin")
    switch request.method {
    case "OPTIONS":
      guard
        let allowed = cors.preflight(
          origin: origin, method: request.header("access-control-request-method"),
          headers: request.header("access-control-request-headers"))
      else { return .answer(.plain(403, "this origin may not call the gateway (--cors-origin)")) }
      return .answer(WebAnswer(status: 204, headers: allowed))
    case "POST" where request.path == "/dev/token" && devTokens != nil:
      guard DevTokens.isFromThisMachine(request) else {
        return .answer(.plain(403, "development tokens are for pages on this machine's loopback address"))
      }
      guard devTokens!.admits(request) else {
        return .answer(
          .plain(
            403,
            "development tokens are for the person who started the stack: open the web app at the address `intentmesh up` printed (it ends in #dev=…)"
          ))
      }
      let (status, json) = devTokens!.answer(request.body)
      return .answer(
        WebAnswer(
          status: status, headers: [("content-type", "application/json"), ("cache-control", "no-store")],
          body: Array(json.text.utf8)))
    case "POST":
      guard let kind = request.header("content-type").flatMap(ConnectRequestKind.init(contentType:)) else {
        return .answer(
          WebAnswer(
            status: 415,
            headers: cors.responseHeaders(origin: origin) + [
              ("accept-post", ConnectRequestKind.accepted), ("content-type", "text/plain; charset=utf-8"),
            ],
            body: Array("unsupported content type; this endpoint takes \(ConnectRequestKind.accepted)\n".utf8)))
      }
      return .call(kind)
    case "GET", "HEAD":
      return .answer(page(request))
    default:
      return .answer(.plain(405, "not allowed: \(request.method) \(request.path)"))
    }
  }

  /// The answer to a call whose headers the method does not take (`WebCallRequest` says why),
  /// in the request's protocol; nil when it takes them.
  func refusal(of request: WebRequest, kind: ConnectRequestKind) -> WebAnswer? {
    let schema = schema()
    do {
      _ = try WebCallRequest(path: request.path, headers: request.headers, kind: kind, schema: schema)
      return nil
    } catch {
      let (status, contentType, body) = error.answer(kind: kind, codec: ProtoJSONCodec(schema: schema))
      return WebAnswer(
        status: status,
        headers: [("content-type", contentType)] + cors.responseHeaders(origin: request.header("origin")), body: body)
    }
  }

  func respond(_ request: WebRequest, writer: some WebResponseWriter) async throws {
    switch reply(to: request) {
    case .answer(let answer):
      try await answer.write(to: writer)
    case .call(let kind):
      try await call(request, kind: kind, cors: cors.responseHeaders(origin: request.header("origin")), writer: writer)
    }
  }

  /// A file of the web app; 304 when the browser has it already.
  private func page(_ request: WebRequest) -> WebAnswer {
    guard let page = pages.page(for: request.path) else { return .plain(404, "not found: \(request.path)") }
    if let etag = page.etag, request.header("if-none-match") == etag {
      return WebAnswer(status: 304, headers: [("etag", etag)] + WebPages.securityHeaders)
    }
    let headers =
      [("content-type", page.contentType), ("etag", page.etag ?? "")].filter { !$0.1.isEmpty }
      + WebPages.securityHeaders
    if request.method == "HEAD" {
      return WebAnswer(status: 200, headers: headers + [("content-length", "\(page.body.count)")])
    }
    return WebAnswer(status: 200, headers: headers, body: page.body)
  }

  // MARK: - Calls

  private func call(
    _ request: WebRequest, kind: ConnectRequestKind, cors: [(String, String)], writer: some WebResponseWriter
  ) async throws {
    let schema = schema()
    let streaming = schema.methods[request.path]?.serverStreaming ?? false
    let user = await user(of: request)
    do {
      try calls.acquire(user: user, streaming: streaming)
    } catch {
      let (status, contentType, body) = ConnectFailure(code: .resourceExhausted, message: error.message).answer(
        kind: kind, codec: nil)
      return try await writer.respond(status: status, headers: [("content-type", contentType)] + cors, body: body)
    }
    defer { calls.release(user: user, streaming: streaming) }
    let codec = ProtoJSONCodec(schema: schema)
    if kind.isText {
      try await answer(
        request, kind: kind, schema: schema, codec: codec, cors: cors, writer: GRPCWebTextWriter(base: writer))
    } else {
      try await answer(request, kind: kind, schema: schema, codec: codec, cors: cors, writer: writer)
    }
  }

  private func answer(
    _ request: WebRequest, kind: ConnectRequestKind, schema: ProtoSchema, codec: ProtoJSONCodec,
    cors: [(String, String)], writer: some WebResponseWriter
  ) async throws {
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
    let call = try WebCallRequest(path: request.path, headers: request.headers, kind: kind, schema: schema)
    return ConnectUpstream.Call(
      path: request.path, method: call.method, request: try call.message(in: request.body, codec: codec),
      metadata: call.metadata, timeout: call.timeout)
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
    try timeout(headers: request.headers, kind: kind)
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

extension WebResponseWriter {
  /// A whole answer at once.
  func respond(status: Int, headers: [(String, String)], body: [UInt8]) async throws {
    try await head(status: status, headers: headers + [("content-length", "\(body.count)")])
    if !body.isEmpty { try await self.body(body) }
    try await end()
  }
}
