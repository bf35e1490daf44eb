internal import ProtoJSON

/// One JSON-RPC 2.0 message as MCP's Streamable HTTP transport carries it, one to a POST: a request
/// (an id and a method), a notification (a method, no id), or the client's answer to a request of
/// the server's (an id and a result or an error).
enum JSONRPCMessage: Equatable {
  case request(id: JSONValue, method: String, params: JSONValue?)
  case notification(method: String, params: JSONValue?)
  case result(id: JSONValue, result: JSONValue)
  case error(id: JSONValue, code: Int, message: String)

  /// The message a body holds; `JSONRPCError` (with the request's id when it has one) when none.
  init(body: [UInt8]) throws(JSONRPCError) {
    let json: JSONValue
    do {
      json = try JSONReader.read(body, maxDepth: 32)
    } catch {
      throw JSONRPCError(.parseError, "the body is not JSON: \(error.description)")
    }
    try self.init(json)
  }

  init(_ json: JSONValue) throws(JSONRPCError) {
    guard case .object = json else {
      throw JSONRPCError(.invalidRequest, "a JSON-RPC message is an object (batches are not taken)")
    }
    let id = json["id"]
    guard json["jsonrpc"] == .string("2.0") else {
      throw JSONRPCError(.invalidRequest, "jsonrpc must be \"2.0\"", id: id)
    }
    if let id {
      switch id {
      case .string, .number: break
      default: throw JSONRPCError(.invalidRequest, "an id is a string or a number")
      }
    }
    if let method = json["method"] {
      guard case .string(let name) = method, !name.isEmpty else {
        throw JSONRPCError(.invalidRequest, "method must be a string", id: id)
      }
      let params = json["params"]
      if let params, params.members == nil {
        throw JSONRPCError(.invalidParams, "params must be an object", id: id)
      }
      self = id.map { .request(id: $0, method: name, params: params) } ?? .notification(method: name, params: params)
      return
    }
    guard let id else {
      throw JSONRPCError(.invalidRequest, "a message without a method answers a request: it needs an id")
    }
    if let result = json["result"] {
      self = .result(id: id, result: result)
    } else if let error = json["error"], case .string(let message)? = error["message"] {
      let code = error["code"].flatMap { if case .number(let text) = $0 { Int(text) } else { nil } } ?? 0
      self = .error(id: id, code: code, message: message)
    } else {
      throw JSONRPCError(.invalidRequest, "an answer has a result or an error", id: id)
    }
  }

  /// The answer to the request `id`.
  static func answer(id: JSONValue, result: JSONValue) -> JSONValue {
    .object([("jsonrpc", .string("2.0")), ("id", id), ("result", result)])
  }

  /// A request of the server's to the client.
  static func request(id: JSONValue, method: String, params: JSONValue) -> JSONValue {
    .object([("jsonrpc", .string("2.0")), ("id", id), ("method", .string(method)), ("params", params)])
  }

  /// A notification of the server's.
  static func notification(method: String, params: JSONValue? = nil) -> JSONValue {
    var members: [(String, JSONValue)] = [("jsonrpc", .string("2.0")), ("method", .string(method))]
    if let params { members.append(("params", params)) }
    return .object(members)
  }
}

/// A JSON-RPC error: its code, its message and the id of the request it answers (null when that
/// could not be read).
struct JSONRPCError: Error, Equatable {
  enum Code: Int {
    case parseError = -32700
    case invalidRequest = -32600
    case methodNotFound = -32601
    case invalidParams = -32602
    case internalError = -32603
  }

  let code: Int
  let message: String
  var id: JSONValue?

  init(_ code: Code, _ message: String, id: JSONValue? = nil) {
    self.code = code.rawValue
    self.message = message
    self.id = id
  }

  /// The error as the answer to its request.
  var json: JSONValue {
    .object([
      ("jsonrpc", .string("2.0")), ("id", id ?? .null),
      ("error", .object([("code", .integer(code)), ("message", .string(message))])),
    ])
  }
}
