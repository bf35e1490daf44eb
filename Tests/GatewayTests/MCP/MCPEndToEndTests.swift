import Foundation
@testable import Gateway
import IntentsKitTesting
import ProtoJSON
@testable import ServiceKit
import Testing

/// The MCP endpoint on the gateway's public port over real sockets (HTTP/1.1, as the Python SDK's
/// HTTP client speaks it): the bearer challenge and its metadata, sessions bound to their user,
/// tools from the routing table, a tool call that needs a choice, and a message that is sent only
/// once the user says yes — asked on the call's event stream, answered on another connection.
@Suite("Gateway: MCP on the public port", .serialized)
struct MCPEndToEndTests {
  static func bearer(_ user: String) -> (String, String) {
    ("authorization", "Bearer \(TestIdentity.token(for: user))")
  }

  static let initialize = #"""
    {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"test","version":"1"}}}
    """#

  static func json(_ response: RawHTTP1Connection.Response) throws -> JSONValue { try JSONReader.read(response.body) }

  /// The JSON-RPC message of each server-sent event in `bytes`.
  static func events(_ bytes: [UInt8]) throws -> [JSONValue] {
    try String(decoding: bytes, as: UTF8.self).components(separatedBy: "\n")
      .filter { $0.hasPrefix("data: ") }.map { try JSONReader.read(String($0.dropFirst(6))) }
  }

  static func session(_ connection: RawHTTP1Connection, user: String = "diana") throws -> String {
    let answer = try connection.json("/mcp", initialize, headers: [bearer(user)])
    #expect(answer.status == 200, "\(answer.text)")
    #expect(try json(answer)["result"]?["protocolVersion"] == .string("2025-11-25"))
    return try #require(answer.header("mcp-session-id"))
  }

  @Test("no token: 401 whose challenge names the protected resource metadata, which names the issuer")
  func challenge() async throws {
    try await Self.overHTTP1 { connection, port in
      let refused = try connection.json("/mcp", Self.initialize)
      #expect(refused.status == 401)
      #expect(
        refused.header("www-authenticate")
          == "Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource/mcp\"")
      let bad = try connection.json("/mcp", Self.initialize, headers: [("authorization", "Bearer x.y.z")])
      #expect(bad.status == 401 && bad.header("www-authenticate")?.contains("error=\"invalid_token\"") == true)
      let metadata = try connection.call("GET", "/.well-known/oauth-protected-resource/mcp")
      #expect(metadata.status == 200)
      let document = try Self.json(metadata)
      #expect(document["resource"] == .string("http://127.0.0.1/mcp"))
      #expect(document["authorization_servers"] == .array([.string(TestIdentity.authentication.policy.issuer)]))
    }
  }

  @Test("tools/list is the routing table's intents; a session is its user's only; bad JSON-RPC is 400")
  func toolsAndSessions() async throws {
    try await Self.overHTTP1 { connection, port in
      let session = try Self.session(connection)
      let list = #"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#
      let listed = try connection.json("/mcp", list, headers: [Self.bearer("diana"), ("mcp-session-id", session)])
      guard case .array(let tools)? = try Self.json(listed)["result"]?["tools"] else {
        Issue.record("no tools in \(listed.text)")
        return
      }
      let names = tools.compactMap { $0["name"]?.stringValue }
      #expect(names.contains("UnicornChat_SendMessage"))
      #expect(tools.allSatisfy { $0["inputSchema"]?["type"] == .string("object") })
      let kates = try connection.json("/mcp", list, headers: [Self.bearer("kate"), ("mcp-session-id", session)])
      #expect(kates.status == 404)
      let none = try connection.json("/mcp", list, headers: [Self.bearer("diana")])
      #expect(none.status == 400)
      let broken = try connection.json("/mcp", "{\"jsonrpc\":", headers: [Self.bearer("diana")])
      #expect(broken.status == 400)
      let brokenError = try Self.json(broken)["error"]
      #expect(brokenError?["code"] == .number("-32700"))
      // The session's stream of the server's messages stays open until the session ends.
      let stream = try RawHTTP1Connection(port: port)
      stream.write(
        RawHTTP1Connection.request("GET", "/mcp", headers: [Self.bearer("diana"), ("mcp-session-id", session)]))
      let head = try stream.readHead()
      #expect(head.status == 200 && head.header("content-type") == "text/event-stream")
      let deleted = try connection.call(
        "DELETE", "/mcp", headers: [Self.bearer("diana"), ("mcp-session-id", session)])
      #expect(deleted.status == 204)
      #expect(try stream.readChunk().isEmpty, "the stream ended with its session")
      let gone = try connection.json("/mcp", list, headers: [Self.bearer("diana"), ("mcp-session-id", session)])
      #expect(gone.status == 404)
    }
  }

  @Test("SendMessage: a choice comes back as options; the message goes only on the user's yes, asked by the server")
  func sendOnTheUsersYes() async throws {
    try await Self.overHTTP1 { connection, port in
      let session = try Self.session(connection)
      let headers = [
        Self.bearer("diana"), ("mcp-session-id", session), ("accept", "application/json, text/event-stream"),
      ]
      func call(_ arguments: String) -> String {
        #"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"UnicornChat_SendMessage","arguments":\#(arguments)}}"#
      }
      let choice = try connection.json(
        "/mcp", call(#"{"recipients":[{"displayName":"Diana"}],"content":"hi"}"#), headers: headers)
      #expect(choice.header("content-type") == "text/event-stream")
      let chosen = try #require(try Self.events(choice.body).last?["result"]?["structuredContent"])
      #expect(chosen["status"] == .string("needs_choice") && chosen["prompt"] == .string("Which Diana?"))
      guard case .array(let options)? = chosen["options"], let prince = options.first?["value"] else {
        Issue.record("no options in \(chosen.text)")
        return
      }
      // The user's yes is asked on the call's own event stream…
      connection.write(
        RawHTTP1Connection.request(
          "POST", "/mcp", headers: headers + [("content-type", "application/json")],
          body: Array(call(#"{"recipients":[\#(prince.text)],"content":"hi from MCP"}"#).utf8)))
      let head = try connection.readHead()
      #expect(head.status == 200)
      let question = try #require(try Self.events(connection.readChunk()).first)
      #expect(question["method"] == .string("elicitation/create"))
      #expect(question["params"]?["message"] == .string("Ready to send it?"))
      let id = try #require(question["id"]?.stringValue)
      // …and answered on another connection, as the SDK does.
      let other = try RawHTTP1Connection(port: port)
      let yes = #"{"jsonrpc":"2.0","id":"\#(id)","result":{"action":"accept","content":{"confirm":true}}}"#
      let accepted = try other.json("/mcp", yes, headers: [Self.bearer("diana"), ("mcp-session-id", session)])
      #expect(accepted.status == 202)
      var rest: [UInt8] = []
      while case let chunk = try connection.readChunk(), !chunk.isEmpty { rest += chunk }
      let done = try #require(try Self.events(rest).last?["result"]?["structuredContent"])
      #expect(done["status"] == .string("done"), "\(done.text)")
      #expect(done["response"]?["payload"]?["sentMessage"]?["content"] == .string("hi from MCP"))
      // Another user cannot answer Diana's question.
      let kates = try other.json("/mcp", yes, headers: [Self.bearer("kate"), ("mcp-session-id", session)])
      #expect(kates.status == 404)
    }
  }

  /// Runs `body` with an HTTP/1.1 connection to a test gateway's public port, and the port.
  static func overHTTP1(_ body: @escaping @Sendable (RawHTTP1Connection, Int) throws -> Void) async throws {
    try await TestGateway.run { harness in
      let port = harness.port
      try await offThePool { try body(try RawHTTP1Connection(port: port), port) }
    }
  }
}
