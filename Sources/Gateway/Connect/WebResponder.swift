#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import Logging
internal import ProtoJSON
internal import ServiceKit

/// Answers the gateway's web requests that are no call, synchronously, on the event loop of the
/// connection that read them (HTTP/1.1 or an HTTP/2 stream of the relay): CORS preflights for
/// configured origins, the web app's pages, development tokens, and web calls refused from their
/// headers (an unsupported content type, a method or headers the call cannot have) in the
/// request's protocol. Calls themselves the relay carries as gRPC (`WebCallTranslation`).
final class WebResponder: Sendable {
  private let schema: @Sendable () -> ProtoSchema
  let cors: CORSPolicy
  private let pages: WebPages
  private let devTokens: DevTokens?
  /// The MCP server (`/mcp`, and its protected resource metadata), when the gateway has one.
  let mcp: MCPEndpoint?

  init(
    schema: @escaping @Sendable () -> ProtoSchema, cors: CORSPolicy, pages: WebPages = WebPages(),
    devTokens: DevTokens? = nil, mcp: MCPEndpoint? = nil
  ) {
    self.pages = pages
    self.mcp = mcp
    self.devTokens = devTokens
    self.schema = schema
    self.cors = cors
  }

  /// The gateway's responder: pages from `pages`, and development tokens signed with the local
  /// identity in `devTokensFrom` (nil: none).
  static func make(
    reflection: GatewayReflection, cors: CORSPolicy, pages: WebPages, devTokensFrom: String?, mcp: MCPEndpoint?,
    logger: Logger
  ) throws -> WebResponder {
    let devTokens = try devTokensFrom.map {
      let folder = URL(fileURLWithPath: $0)
      return DevTokens(
        issuer: try LocalIssuer.loadOrCreate(in: folder), secret: try DevTokenSecret.loadOrCreate(in: folder))
    }
    if let devTokensFrom {
      logger.notice(
        "development tokens: POST /dev/token signs a token for any user, for a page on loopback that holds the secret in \(DevTokenSecret.fileName) (the web app's address: …/#dev=<secret>)",
        metadata: ["identity": "\(devTokensFrom)"])
    }
    return WebResponder(schema: { reflection.schema() }, cors: cors, pages: pages, devTokens: devTokens, mcp: mcp)
  }

  /// The messages and methods calls are read and answered by now.
  func currentSchema() -> ProtoSchema { schema() }

  /// How a request is answered: at once, or by a call of `kind`.
  enum Reply {
    case answer(WebAnswer)
    case call(ConnectRequestKind)
    /// An answer given later, part by part, by `produce` (an MCP request's): the relay runs it in a
    /// task of its own, cancelled when the request's stream goes.
    case later(@Sendable (WebAnswerWriter) async -> Void)
  }

  /// What answers `request`: a preflight, a development token, a page or a refusal at once, or
  /// (a POST of a web content type) a call. Synchronous: the relay answers its HTTP/2 streams so.
  func reply(to request: WebRequest) -> Reply {
    if let mcp, let reply = mcp.reply(to: request) { return reply }
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
          body: json.utf8))
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
    case "GET":
      // A Connect GET the relay did not carry: its refusal (`refusal(of:kind:)`); else a page.
      switch Result(catching: { () throws(ConnectFailure) in try ConnectGetRequest.parse(request.target) }) {
      case .success(let call?): return .call(.unary(call.codec))
      case .success(nil): return .answer(page(request))
      case .failure(let failure): return .answer(answer(failure, kind: .unary(.json), origin: origin))
      }
    case "HEAD":
      return .answer(page(request))
    default:
      return .answer(.plain(405, "not allowed: \(request.method) \(request.path)"))
    }
  }

  /// The answer to a call whose headers the method does not take (`WebCallRequest` says why),
  /// in the request's protocol; nil when it takes them.
  func refusal(of request: WebRequest, kind: ConnectRequestKind) -> WebAnswer? {
    let schema = schema()
    let origin = request.header("origin")
    do {
      if request.method == "GET", let get = try ConnectGetRequest.parse(request.target) {
        if let method = schema.methods[get.path], !method.noSideEffects {
          // As connect-go answers it: the method exists, but not for GET.
          var refused = answer(WebCallRequest.notForGet(get.path), kind: kind, origin: origin)
          refused.status = 405
          refused.headers.append(("allow", "POST"))
          return refused
        }
        _ = try WebCallRequest(path: get.path, headers: request.headers, kind: kind, schema: schema, viaGet: true)
        return nil
      }
      _ = try WebCallRequest(path: request.path, headers: request.headers, kind: kind, schema: schema)
      return nil
    } catch {
      return answer(error, kind: kind, origin: origin)
    }
  }

  /// `failure` as the request's protocol writes it, with CORS headers for `origin`.
  private func answer(_ failure: ConnectFailure, kind: ConnectRequestKind, origin: String?) -> WebAnswer {
    let (status, contentType, body) = failure.answer(kind: kind, codec: ProtoJSONCodec(schema: schema()))
    return WebAnswer(
      status: status, headers: [("content-type", contentType)] + cors.responseHeaders(origin: origin), body: body)
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
}
