internal import GRPCCore
internal import IntentMeshCore
internal import IntentMeshProtos
internal import Logging
internal import ProtoJSON
internal import ServiceKit

/// The gateway's MCP server, on its public port: the Streamable HTTP transport at `/mcp` (protocol
/// 2025-11-25, with 2025-06-18 and 2025-03-26 negotiated when a client asks for them), and OAuth 2.0
/// Protected Resource Metadata (RFC 9728) at `/.well-known/oauth-protected-resource[/mcp]` naming
/// the token issuer the gateway trusts. Every request needs a bearer token the gateway verifies;
/// without one, 401 with `WWW-Authenticate` pointing at the metadata. A session (`initialize`) is
/// the token's user's only. `tools/list` is `MCPToolCatalog`'s; `tools/call` answers as a stream
/// of server-sent events, on which the server may ask the user for their yes (elicitation) before
/// the result.
final class MCPEndpoint: Sendable {
  static let path = "/mcp"
  static let metadataPath = "/.well-known/oauth-protected-resource"
  /// The protocol versions it speaks, newest first.
  static let versions = ["2025-11-25", "2025-06-18", "2025-03-26"]
  /// How long the server waits for the user's yes.
  static let answerLimit = Duration.seconds(600)

  private let verifier: TokenVerifier
  private let issuer: String
  private let scheme: String
  let catalog: MCPToolCatalog
  let sessions: MCPSessions
  private let schema: @Sendable () -> ProtoSchema
  private let interact: MCPToolCall.Interact
  private let cors: CORSPolicy
  private let logger: Logger

  init(
    verifier: TokenVerifier, tls: Bool, catalog: MCPToolCatalog, sessions: MCPSessions = MCPSessions(),
    schema: @escaping @Sendable () -> ProtoSchema, cors: CORSPolicy, logger: Logger,
    interact: @escaping MCPToolCall.Interact
  ) {
    self.verifier = verifier
    self.issuer = verifier.policy.issuer
    self.scheme = tls ? "https" : "http"
    self.catalog = catalog
    self.sessions = sessions
    self.schema = schema
    self.interact = interact
    self.cors = cors
    self.logger = logger
  }

  // MARK: HTTP

  /// The answer to `request` when it is for MCP (its path), else nil.
  func reply(to request: WebRequest) -> WebResponder.Reply? {
    if request.path == Self.metadataPath || request.path == Self.metadataPath + Self.path {
      guard request.method == "GET" || request.method == "HEAD" else {
        return .answer(.plain(405, "the protected resource metadata is read with GET"))
      }
      return .answer(json(200, metadata(request)))
    }
    guard request.path == Self.path, request.method != "OPTIONS" else { return nil }
    // A page of another origin may not drive the user's tools (DNS rebinding): same origin, or allowed.
    if let origin = request.header("origin"), !cors.allows(origin),
      !Self.sameOrigin(origin, host: request.header("host"))
    {
      return .answer(.plain(403, "this origin may not call the MCP endpoint (--cors-origin)"))
    }
    switch request.method {
    case "POST":
      return .later { writer in await self.post(request, writer: writer) }
    case "DELETE":
      return .later { writer in await self.delete(request, writer: writer) }
    case "GET":
      return .later { writer in await self.listen(request, writer: writer) }
    default:
      var answer = WebAnswer.plain(405, "the MCP endpoint takes POST, GET and DELETE")
      answer.headers.append(("allow", "POST, GET, DELETE"))
      return .answer(answer)
    }
  }

  private static func sameOrigin(_ origin: String, host: String?) -> Bool {
    guard let host else { return false }
    return origin == "http://\(host)" || origin == "https://\(host)"
  }

  /// RFC 9728's document: this resource, and the issuer whose tokens it takes.
  private func metadata(_ request: WebRequest) -> JSONValue {
    .object([
      ("resource", .string(resource(request))),
      ("authorization_servers", .array([.string(issuer)])),
      ("bearer_methods_supported", .array([.string("header")])),
      ("resource_name", .string("IntentMesh")),
    ])
  }

  private func resource(_ request: WebRequest) -> String {
    "\(scheme)://\(request.header("host") ?? "localhost")\(Self.path)"
  }

  private func unauthorized(_ request: WebRequest, _ rejection: TokenRejection?) -> WebAnswer {
    var challenge =
      "Bearer resource_metadata=\"\(scheme)://\(request.header("host") ?? "localhost")\(Self.metadataPath)\(Self.path)\""
    if let rejection, rejection != .missing {
      let description = rejection.rpcErrorMessage.replacing("\"", with: "'")
      challenge += ", error=\"invalid_token\", error_description=\"\(description)\""
    }
    var answer = json(
      401, JSONRPCError(.invalidRequest, rejection?.rpcErrorMessage ?? TokenRejection.missing.rpcErrorMessage).json)
    answer.headers.append(("www-authenticate", challenge))
    return answer
  }

  private func json(_ status: Int, _ body: JSONValue, headers: [(String, String)] = []) -> WebAnswer {
    WebAnswer(
      status: status, headers: [("content-type", "application/json"), ("cache-control", "no-store")] + headers,
      body: body.utf8)
  }

  /// Who calls: the token's user (and the header that says so), or the 401 to answer.
  private enum Caller {
    case user(UserKey, authorization: String)
    case refused(WebAnswer)
  }

  private func caller(_ request: WebRequest) async -> Caller {
    // As every call's: one `authorization: Bearer` header, verified.
    var metadata = Metadata()
    for (name, value) in request.headers where name == BearerCredential.metadataKey {
      metadata.addString(value, forKey: name)
    }
    do {
      let token = try BearerCredential.token(in: metadata)
      let caller = try await verifier.verify(token)
      return .user(UserKey(caller.subject), authorization: "Bearer \(token)")
    } catch {
      return .refused(unauthorized(request, error))
    }
  }

  // MARK: Messages

  private func post(_ request: WebRequest, writer: WebAnswerWriter) async {
    let user: UserKey
    let authorization: String
    switch await caller(request) {
    case .user(let key, let header): (user, authorization) = (key, header)
    case .refused(let answer): return writer.answer(answer)
    }
    guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
      return writer.answer(json(415, JSONRPCError(.invalidRequest, "the body must be application/json").json))
    }
    if let version = request.header("mcp-protocol-version"), !Self.versions.contains(version) {
      return writer.answer(
        json(
          400,
          JSONRPCError(
            .invalidRequest,
            "unsupported MCP-Protocol-Version \(version); this server speaks \(Self.versions.joined(separator: ", "))"
          ).json))
    }
    let message: JSONRPCMessage
    do {
      message = try JSONRPCMessage(body: request.body)
    } catch {
      return writer.answer(json(400, error.json))
    }
    let sessionID = request.header("mcp-session-id")
    switch message {
    case .request(let id, "initialize", let params):
      writer.answer(await initialize(id: id, params: params, user: user))
    case .request(let id, let method, let params):
      guard ["ping", "tools/list", "tools/call"].contains(method) else {
        return writer.answer(json(200, JSONRPCError(.methodNotFound, "no method \(method)", id: id).json))
      }
      guard let sessionID else {
        return writer.answer(
          json(400, JSONRPCError(.invalidRequest, "no Mcp-Session-Id: initialize first", id: id).json))
      }
      guard let session = await sessions.session(sessionID, user: user) else {
        return writer.answer(json(404, JSONRPCError(.invalidRequest, "no such session", id: id).json))
      }
      switch method {
      case "ping":
        writer.answer(json(200, JSONRPCMessage.answer(id: id, result: .object([]))))
      case "tools/list":
        let tools = catalog.tools.map(\.json)
        writer.answer(json(200, JSONRPCMessage.answer(id: id, result: .object([("tools", .array(tools))]))))
      default:
        await callTool(
          id: id, params: params, session: session, sessionID: sessionID, user: user, authorization: authorization,
          writer: writer)
      }
    case .notification:
      writer.answer(WebAnswer(status: 202, headers: []))
    case .result(let id, let result):
      await answered(id, .result(result), sessionID: sessionID, user: user, writer: writer)
    case .error(let id, _, let text):
      await answered(id, .error(text), sessionID: sessionID, user: user, writer: writer)
    }
  }

  private func answered(
    _ id: JSONValue, _ answer: MCPSessions.Answer, sessionID: String?, user: UserKey, writer: WebAnswerWriter
  ) async {
    guard let sessionID, case .string(let requestID) = id,
      await sessions.answered(requestID, on: sessionID, user: user, with: answer)
    else {
      return writer.answer(
        json(404, JSONRPCError(.invalidRequest, "no request of this session's waits for that answer", id: id).json))
    }
    writer.answer(WebAnswer(status: 202, headers: []))
  }

  private func initialize(id: JSONValue, params: JSONValue?, user: UserKey) async -> WebAnswer {
    let requested = params?["protocolVersion"]?.stringValue ?? ""
    let version = Self.versions.contains(requested) ? requested : Self.versions[0]
    let elicits = params?["capabilities"]?["elicitation"] != nil
    let session = await sessions.open(user: user, version: version, elicits: elicits)
    let result = JSONValue.object([
      ("protocolVersion", .string(version)),
      ("capabilities", .object([("tools", .object([("listChanged", .bool(true))]))])),
      (
        "serverInfo",
        .object([
          ("name", .string("intentmesh-gateway")), ("title", .string("IntentMesh")), ("version", .string("1.0.0")),
        ])
      ),
      (
        "instructions",
        .string(
          "Each tool is one app's SiriKit intent, acting for the signed-in user. A result's status says where it stopped: needs_value / needs_choice / needs_value_confirmed — ask the user the prompt (offer the options) and call again with the arguments filled in; needs_user_confirmation — only the user can say yes, in a client that can ask them; done — response is the app's answer."
        )
      ),
    ])
    return json(200, JSONRPCMessage.answer(id: id, result: result), headers: [("mcp-session-id", session)])
  }

  private func delete(_ request: WebRequest, writer: WebAnswerWriter) async {
    let user: UserKey
    switch await caller(request) {
    case .user(let key, _): user = key
    case .refused(let answer): return writer.answer(answer)
    }
    guard let sessionID = request.header("mcp-session-id"), await sessions.end(sessionID, user: user) else {
      return writer.answer(json(404, JSONRPCError(.invalidRequest, "no such session").json))
    }
    writer.answer(WebAnswer(status: 204, headers: []))
  }

  /// A session's stream of the server's own messages (`notifications/tools/list_changed`), open
  /// until the client closes it, the session ends or another GET replaces it.
  private func listen(_ request: WebRequest, writer: WebAnswerWriter) async {
    let user: UserKey
    switch await caller(request) {
    case .user(let key, _): user = key
    case .refused(let answer): return writer.answer(answer)
    }
    guard let sessionID = request.header("mcp-session-id") else {
      return writer.answer(json(400, JSONRPCError(.invalidRequest, "no Mcp-Session-Id: initialize first").json))
    }
    guard let number = await sessions.listen(sessionID, user: user, writer: writer) else {
      return writer.answer(json(404, JSONRPCError(.invalidRequest, "no such session").json))
    }
    while !Task.isCancelled {
      try? await Task.sleep(for: .seconds(3600))
    }
    await sessions.stopListening(sessionID, number: number)
  }

  // MARK: Tools

  private func callTool(
    id: JSONValue, params: JSONValue?, session: MCPSessions.Session, sessionID: String, user: UserKey,
    authorization: String, writer: WebAnswerWriter
  ) async {
    guard case .string(let name)? = params?["name"], let tool = catalog.tool(named: name) else {
      return writer.answer(json(200, JSONRPCError(.invalidParams, "unknown tool", id: id).json))
    }
    let arguments = params?["arguments"] ?? .object([])
    guard arguments.members != nil else {
      return writer.answer(json(200, JSONRPCError(.invalidParams, "arguments must be an object", id: id).json))
    }
    var key: String?
    if case .string(let given)? = params?["_meta"]?["io.intentmesh/idempotency-key"] {
      guard !given.isEmpty, given.utf8.count <= 128, given.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
        return writer.answer(
          json(
            200,
            JSONRPCError(.invalidParams, "io.intentmesh/idempotency-key: 1 to 128 visible ASCII characters", id: id)
              .json))
      }
      key = "\(given)"
    }
    var context = Intentmesh_V1_RequestContext()
    context.timeZone = params?["_meta"]?["io.intentmesh/time-zone"]?.stringValue ?? "UTC"
    context.locale = params?["_meta"]?["io.intentmesh/locale"]?.stringValue ?? "en-US"
    // The answer is a stream of events: a question to the user may come before the result.
    writer.write(.head(status: 200, headers: [("content-type", "text/event-stream"), ("cache-control", "no-store")]))
    let call = MCPToolCall(
      tool: tool, codec: ProtoJSONCodec(schema: schema()), interact: interact, authorization: authorization)
    let result = await call.run(arguments: arguments, idempotencyKey: key, context: context) { prompt in
      guard session.elicits else { return .unavailable }
      return await self.ask(prompt, sessionID: sessionID, writer: writer)
    }
    writer.write(.body(Self.event(JSONRPCMessage.answer(id: id, result: result))))
    writer.write(.end)
  }

  /// Asks the user `prompt` as a yes-or-no form (MCP elicitation) on the call's event stream.
  private func ask(_ prompt: String, sessionID: String, writer: WebAnswerWriter) async -> MCPToolCall.UserAnswer {
    let requestID = await sessions.requestID()
    let params = JSONValue.object([
      ("mode", .string("form")),
      ("message", .string(prompt)),
      (
        "requestedSchema",
        .object([
          ("type", .string("object")),
          (
            "properties",
            .object([
              (
                "confirm",
                .object([
                  ("type", .string("boolean")), ("title", .string("Yes, go ahead")), ("description", .string(prompt)),
                ])
              )
            ])
          ),
          ("required", .array([.string("confirm")])),
        ])
      ),
    ])
    writer.write(
      .body(Self.event(JSONRPCMessage.request(id: .string(requestID), method: "elicitation/create", params: params))))
    switch await sessions.answer(to: requestID, on: sessionID, within: Self.answerLimit) {
    case .result(let result):
      guard result["action"] == .string("accept") else { return .no }
      return result["content"]?["confirm"] == .bool(true) ? .yes : .no
    case .error, .none:
      return .unavailable
    }
  }

  private static func event(_ message: JSONValue) -> [UInt8] { MCPSessions.event(message) }
}
