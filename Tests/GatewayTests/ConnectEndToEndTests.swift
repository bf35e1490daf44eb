import Foundation
@testable import Gateway
import IntentMeshProtos
import IntentsKitTesting
@testable import Messaging
import MessagingProtos
import NIOCore
import NIOHPACK
import ProtoJSON
@testable import ServiceKit
import SwiftProtobuf
import Testing

/// The Connect protocol and gRPC-Web on the gateway's public port, over real sockets: HTTP/1.1 as
/// curl and browsers send it, HTTP/2 through the relay, the errors, the stream envelopes, CORS,
/// and the limits an HTTP/1.1 peer meets.
@Suite("Gateway: Connect and gRPC-Web on the public port", .serialized)
struct ConnectEndToEndTests {
  typealias Harness = TestGateway

  static let bearer = ("authorization", "Bearer \(TestIdentity.token(for: "diana"))")
  static let sendToDiana = """
    {"context":{"timeZone":"Europe/Zurich"},"intent":{"intentClass":"INSendMessageIntent","appName":"UnicornChat",\
    "payload":{"@type":"type.googleapis.com/intentmesh.messaging.v1.SendMessageIntent",\
    "recipients":[{"displayName":"Diana"}],"content":"hello"}}}
    """

  static func json(_ response: RawHTTP1Connection.Response) throws -> JSONValue {
    try JSONReader.read(response.body)
  }

  @Test("curl's JSON POST over HTTP/1.1: ListRoutes without a token, Interact with one, on one kept-alive connection")
  func unaryJSONOverHTTP1() async throws {
    try await Self.overHTTP1 { connection, _ in
      let routes = try connection.json("/intentmesh.gateway.v1.Gateway/ListRoutes", "{}")
      #expect(routes.status == 200)
      #expect(routes.header("content-type") == "application/json")
      #expect(routes.header("x-request-id")?.isEmpty == false)
      let domains = try Self.json(routes)["domains"]
      guard case .array(let list)? = domains else {
        Issue.record("no domains in \(routes.text)")
        return
      }
      #expect(list.compactMap { $0["appName"]?.stringValue } == ["UnicornChat"])

      let turn = try connection.json(
        "/intentmesh.gateway.v1.Gateway/Interact", Self.sendToDiana, headers: [Self.bearer])
      #expect(turn.status == 200, "\(turn.text)")
      let answer = try Self.json(turn)
      #expect(answer["stage"] == .string("STAGE_NEEDS_PARAMETER"))
      #expect(answer["prompt"] == .string("Which Diana?"))
      #expect(answer["intent"]?["identifier"]?.stringValue?.isEmpty == false)
      // The disambiguation options are Anys of a domain type the gateway was not built with.
      guard case .array(let options)? = answer["result"]?["disambiguation"]?["options"] else {
        Issue.record("no options in \(turn.text)")
        return
      }
      #expect(options.compactMap { $0["displayText"]?.stringValue } == ["Diana Prince", "Diana Ross"])
      #expect(
        options.first?["value"]?["@type"] == .string("type.googleapis.com/intentmesh.v1.Person"),
        "\(options.first?.text ?? "")")
    }
  }

  @Test("application/proto answers the same message as the gRPC call")
  func unaryProtoMatchesGRPC() async throws {
    try await Harness.run { harness in
      let request = Intentmesh_Gateway_V1_InteractRequest.with {
        $0.context = Harness.context
        $0.intent = try! Harness.intent(
          "INSendMessageIntent", app: "UnicornChat", identifier: "connect-proto-1",
          payload: SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Diana" }]
            $0.content = "hello"
          })
      }
      let port = harness.port
      let body: [UInt8] = try request.serializedBytes()
      let viaConnect = try await offThePool {
        try RawHTTP1Connection(port: port).call(
          "POST", "/intentmesh.gateway.v1.Gateway/Interact",
          headers: [("content-type", "application/proto"), Self.bearer], body: body)
      }
      #expect(viaConnect.status == 200)
      #expect(viaConnect.header("content-type") == "application/proto")
      let decoded = try Intentmesh_Gateway_V1_InteractResponse(serializedBytes: viaConnect.body)
      let viaGRPC = try await harness.gatewayClient.interact(request)
      #expect(decoded == viaGRPC)
    }
  }

  @Test(
    "Connect GET of a method without side effects: JSON and base64 proto in the query, answered as the POST form; other methods 405"
  )
  func connectGet() async throws {
    try await Harness.run { harness in
      let port = harness.port
      let resolve = Intentmesh_V1_ResolveRequest.with {
        $0.context = Harness.context
        $0.intent = try! Harness.intent(
          "INSendMessageIntent", app: "UnicornChat",
          payload: SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Diana" }]
            $0.content = "hello"
          })
      }
      let viaGRPC = try await harness.extensionClient.resolve(resolve)
      let message = String(
        Data(try resolve.serializedBytes() as [UInt8]).base64EncodedString()
          .replacing("+", with: "-").replacing("/", with: "_").prefix { $0 != "=" })
      try await offThePool {
        let connection = try RawHTTP1Connection(port: port)
        // ListRoutes with its JSON message percent-encoded ("{}"), no token needed.
        let routes = try connection.call(
          "GET", "/intentmesh.gateway.v1.Gateway/ListRoutes?connect=v1&encoding=json&message=%7B%7D")
        #expect(routes.status == 200, "\(routes.text)")
        #expect(routes.header("content-type") == "application/json")
        #expect(try Self.json(routes)["domains"] != nil)

        // Resolve, relayed to the domain: the binary message base64url-encoded, unpadded.
        let resolved = try connection.call(
          "GET", "/intentmesh.v1.IntentsExtension/Resolve?connect=v1&encoding=proto&base64=1&message=\(message)",
          headers: [Self.bearer])
        #expect(resolved.status == 200, "\(resolved.text)")
        #expect(resolved.header("content-type") == "application/proto")
        let decoded = try Intentmesh_V1_ResolveResponse(serializedBytes: resolved.body)
        #expect(decoded.resolutions == viaGRPC.resolutions)

        // A method that may have side effects: 405, Allow: POST, the error in Connect's JSON.
        let interact = try connection.call(
          "GET", "/intentmesh.gateway.v1.Gateway/Interact?connect=v1&encoding=json&message=%7B%7D",
          headers: [Self.bearer])
        #expect(interact.status == 405)
        #expect(interact.header("allow") == "POST")
        #expect(try Self.json(interact)["code"] == .string("unimplemented"))

        // A malformed query: invalid_argument (400); an unknown method: unimplemented (501).
        let badEncoding = try connection.call(
          "GET", "/intentmesh.gateway.v1.Gateway/ListRoutes?connect=v1&encoding=xml&message=%7B%7D")
        #expect(badEncoding.status == 400)
        #expect(try Self.json(badEncoding)["message"] == .string("encoding=xml: take json or proto"))
        let badVersion = try connection.call(
          "GET", "/intentmesh.gateway.v1.Gateway/ListRoutes?connect=v2&encoding=json&message=%7B%7D")
        #expect(badVersion.status == 400)
        let unknown = try connection.call(
          "GET", "/intentmesh.gateway.v1.Gateway/Nope?connect=v1&encoding=json&message=%7B%7D")
        #expect(unknown.status == 501)
        // Without Connect's query a GET is for a page.
        #expect(try connection.call("GET", "/?utm_source=test").status == 200)
      }
      // Over HTTP/2 too, through the relay.
      try await offThePool {
        let connection = try RawHTTP2Connection(port: port)
        connection.start()
        let headers = try connection.headerBlock([
          (":method", "GET"), (":scheme", "http"), (":authority", "127.0.0.1"),
          (":path", "/intentmesh.gateway.v1.Gateway/ListRoutes?connect=v1&encoding=json&message=%7B%7D"),
        ])
        connection.write(RawHTTP2Connection.frame(type: 1, flags: 5, stream: 1, payload: headers))
        let frames = try connection.readFrames { $0.stream == 1 && $0.flags & 1 != 0 }
        let head = try frames.filter { $0.stream == 1 && $0.type == 1 }.map { try connection.decode($0.payload) }.first
        #expect(head?.first(name: ":status") == "200")
        let body = frames.filter { $0.stream == 1 && $0.type == 0 }.flatMap(\.payload)
        #expect(String(decoding: body, as: UTF8.self).contains("UnicornChat"))
      }
    }
  }

  @Test("errors: the Connect code, its HTTP status and the ErrorInfo detail; unknown method, bad JSON, bad headers")
  func errors() async throws {
    try await Self.overHTTP1 { connection, _ in
      let noToken = try connection.json("/intentmesh.gateway.v1.Gateway/Interact", Self.sendToDiana)
      #expect(noToken.status == 401)
      let error = try Self.json(noToken)
      #expect(error["code"] == .string("unauthenticated"))
      #expect(error["message"]?.stringValue?.contains("Bearer") == true)
      guard case .array(let details)? = error["details"] else {
        Issue.record("no details in \(noToken.text)")
        return
      }
      #expect(details.first?["type"] == .string("google.rpc.ErrorInfo"))
      #expect(details.first?["debug"]?["reason"] == .string("CREDENTIALS_MISSING"))
      #expect(details.first?["value"]?.stringValue?.contains("=") == false)

      let unknown = try connection.json("/intentmesh.gateway.v1.Gateway/Nope", "{}")
      #expect(unknown.status == 501)
      #expect(try Self.json(unknown)["code"] == .string("unimplemented"))

      let badField = try connection.json("/intentmesh.gateway.v1.Gateway/ListRoutes", #"{"nope": 1}"#)
      #expect(badField.status == 400)
      #expect(try Self.json(badField)["code"] == .string("invalid_argument"))
      #expect(badField.text.contains("has no field nope"))

      let notJSON = try connection.json("/intentmesh.gateway.v1.Gateway/ListRoutes", "{")
      #expect(notJSON.status == 400)

      let version = try connection.json(
        "/intentmesh.gateway.v1.Gateway/ListRoutes", "{}", headers: [("connect-protocol-version", "2")])
      #expect(version.status == 400)

      let timeout = try connection.json(
        "/intentmesh.gateway.v1.Gateway/ListRoutes", "{}", headers: [("connect-timeout-ms", "soon")])
      #expect(timeout.status == 400)

      let media = try connection.call(
        "POST", "/intentmesh.gateway.v1.Gateway/ListRoutes", headers: [("content-type", "text/xml")],
        body: Array("<x/>".utf8))
      #expect(media.status == 415)
      #expect(media.header("accept-post")?.contains("application/json") == true)

      let page = try connection.call("GET", "/nothing-here")
      #expect(page.status == 404)
      // The connection survived every error.
      #expect(try connection.json("/intentmesh.gateway.v1.Gateway/ListRoutes", "{}").status == 200)
    }
  }

  @Test("HTTP/2 with prior knowledge: a Connect JSON call through the relay, with a request id")
  func unaryJSONOverHTTP2() async throws {
    try await Harness.run { harness in
      let port = harness.port
      try await offThePool {
        let connection = try RawHTTP2Connection(port: port)
        connection.start()
        let body = Array("{}".utf8)
        let headers = try connection.headerBlock([
          (":method", "POST"), (":scheme", "http"), (":authority", "127.0.0.1"),
          (":path", "/intentmesh.gateway.v1.Gateway/ListRoutes"), ("content-type", "application/json"),
        ])
        connection.write(
          RawHTTP2Connection.frame(type: 1, flags: 4, stream: 1, payload: headers)
            + RawHTTP2Connection.frame(type: 0, flags: 1, stream: 1, payload: body))
        let frames = try connection.readFrames { $0.stream == 1 && $0.flags & 1 != 0 && ($0.type == 0 || $0.type == 1) }
        guard let head = frames.first(where: { $0.stream == 1 && $0.type == 1 }) else {
          Issue.record("no HEADERS on stream 1: \(frames)")
          return
        }
        let decoded = try connection.decode(head.payload)
        #expect(decoded.first(name: ":status") == "200")
        #expect(decoded.first(name: "content-type") == "application/json")
        let data = frames.filter { $0.stream == 1 && $0.type == 0 }.flatMap(\.payload)
        #expect(String(decoding: data, as: UTF8.self).contains("\"appName\":\"UnicornChat\""))
      }
    }
  }

  @Test("Connect's stream envelopes: one message, then the end-of-stream object; an error ends the stream in it")
  func streamEnvelopes() async throws {
    try await Self.overHTTP1 { connection, _ in
      let enveloped = [0, 0, 0, 0, 2] + Array("{}".utf8)
      let answer = try connection.call(
        "POST", "/intentmesh.gateway.v1.Gateway/ListRoutes",
        headers: [("content-type", "application/connect+json")], body: enveloped)
      #expect(answer.status == 200)
      #expect(answer.header("content-type") == "application/connect+json")
      let envelopes = try #require(Self.envelopes(answer.body))
      #expect(envelopes.map(\.flags) == [0, 2])
      #expect(String(decoding: envelopes[0].payload, as: UTF8.self).contains("UnicornChat"))
      #expect(try JSONReader.read(envelopes[1].payload)["error"] == nil)

      let request = Array(Self.sendToDiana.utf8)
      let refused = try connection.call(
        "POST", "/intentmesh.v1.IntentsExtension/StartSendingUpdates",
        headers: [("content-type", "application/connect+json")],
        body: [0] + Self.bigEndian(UInt32(request.count)) + request)
      #expect(refused.status == 200)
      let end = try #require(Self.envelopes(refused.body)?.last)
      #expect(end.flags == 2)
      #expect(try JSONReader.read(end.payload)["error"]?["code"] == .string("unauthenticated"))

      let unary = try connection.json("/intentmesh.v1.IntentsExtension/StartSendingUpdates", "{}")
      #expect(unary.status == 501, "a streaming method asks for the streaming content type")
    }
  }

  @Test("gRPC-Web: data frames, then the trailers frame with grpc-status; an error's message percent-encoded")
  func grpcWeb() async throws {
    try await Self.overHTTP1 { connection, _ in
      let answer = try connection.call(
        "POST", "/intentmesh.gateway.v1.Gateway/ListRoutes",
        headers: [("content-type", "application/grpc-web+proto")],
        body: [0, 0, 0, 0, 0])
      #expect(answer.status == 200)
      let frames = try #require(Self.envelopes(answer.body))
      #expect(frames.map(\.flags) == [0, 0x80])
      let routes = try Intentmesh_Gateway_V1_ListRoutesResponse(serializedBytes: frames[0].payload)
      #expect(routes.domains.map(\.appName) == ["UnicornChat"])
      #expect(String(decoding: frames[1].payload, as: UTF8.self).hasPrefix("grpc-status:0\r\n"))

      let refused = try connection.call(
        "POST", "/intentmesh.gateway.v1.Gateway/Interact", headers: [("content-type", "application/grpc-web+proto")],
        body: [0, 0, 0, 0, 0])
      let trailers = String(decoding: try #require(Self.envelopes(refused.body)?.last).payload, as: UTF8.self)
      #expect(trailers.hasPrefix("grpc-status:16\r\n"))
      #expect(trailers.contains("grpc-message:missing credentials: send authorization: Bearer <JWT>"))
    }
  }

  @Test("CORS: a configured origin's preflight and call get the headers; another origin's preflight is refused")
  func cors() async throws {
    try await Self.overHTTP1(cors: CORSPolicy(origins: ["https://app.example.com"])) { connection, _ in
      let preflight = try connection.call(
        "OPTIONS", "/intentmesh.gateway.v1.Gateway/Interact",
        headers: [
          ("origin", "https://app.example.com"), ("access-control-request-method", "POST"),
          ("access-control-request-headers", "content-type, authorization, x-trace"),
        ])
      #expect(preflight.status == 204)
      #expect(preflight.header("access-control-allow-origin") == "https://app.example.com")
      #expect(preflight.header("access-control-allow-headers")?.contains("authorization") == true)
      #expect(preflight.header("access-control-allow-headers")?.contains("x-trace") == true)

      let call = try connection.json(
        "/intentmesh.gateway.v1.Gateway/ListRoutes", "{}", headers: [("origin", "https://app.example.com")])
      #expect(call.header("access-control-allow-origin") == "https://app.example.com")
      #expect(call.header("access-control-expose-headers")?.contains("grpc-status") == true)

      let stranger = try connection.call(
        "OPTIONS", "/intentmesh.gateway.v1.Gateway/Interact",
        headers: [("origin", "https://evil.example"), ("access-control-request-method", "POST")])
      #expect(stranger.status == 403)
      let strangerCall = try connection.json(
        "/intentmesh.gateway.v1.Gateway/ListRoutes", "{}", headers: [("origin", "https://evil.example")])
      #expect(strangerCall.header("access-control-allow-origin") == nil)
    }
  }

  @Test(
    "HTTP/1.1 limits: a body over the limit is RESOURCE_EXHAUSTED (429) and the connection closes; slow and silent peers are closed"
  )
  func http1Limits() async throws {
    var limits = RelayLimits.defaults
    limits.handshakeTimeout = .seconds(1)
    try await Self.overHTTP1(limits: limits, maxMessageBytes: 1024) { _, port in
      let large = try RawHTTP1Connection(port: port)
      let answer = try large.call(
        "POST", "/intentmesh.gateway.v1.Gateway/ListRoutes", headers: [("content-type", "application/json")],
        body: Array(repeating: UInt8(ascii: " "), count: 4096))
      #expect(answer.status == 429)
      #expect(try Self.json(answer)["code"] == .string("resource_exhausted"))
      #expect(large.discardUntilClosed(within: 5))

      let slow = try RawHTTP1Connection(port: port)
      slow.write(Array("POST /intentmesh.gateway.v1.Gateway/ListRoutes HTTP/1.1\r\nhost: x\r\n".utf8))
      #expect(slow.discardUntilClosed(within: 5), "a head that never ends")

      let silent = try RawHTTP1Connection(port: port)
      #expect(silent.discardUntilClosed(within: 5), "a peer that says nothing")

      let undecided = try RawHTTP1Connection(port: port)
      undecided.write(Array("PRI * HTTP".utf8))
      #expect(undecided.discardUntilClosed(within: 5), "a preface that never completes")
    }
  }

  @Test("the web app at /: its page with a CSP, 304 for a known ETag, HEAD; POST /dev/token only when enabled")
  func webApp() async throws {
    try await Self.overHTTP1 { connection, _ in
      let page = try connection.call("GET", "/")
      #expect(page.status == 200)
      #expect(page.header("content-type") == "text/html; charset=utf-8")
      #expect(page.header("content-security-policy")?.contains("script-src 'self'") == true)
      #expect(page.text.contains("<html"))
      let etag = try #require(page.header("etag"))
      let again = try connection.call("GET", "/", headers: [("if-none-match", etag)])
      #expect(again.status == 304)
      #expect(again.body.isEmpty)
      #expect(try connection.call("GET", "/../Package.swift").status == 404)
      // Not enabled here: a POST to /dev/token is just an unknown method.
      #expect(try connection.json("/dev/token", #"{"user":"diana"}"#).status == 501)
    }
  }

  /// A live search of Diana's messages as a Connect stream request body (one envelope).
  static let followMessages: [UInt8] = {
    let json = Array(
      """
      {"context":{"timeZone":"Europe/Zurich"},"intent":{"intentClass":"INSearchForMessagesIntent",\
      "appName":"UnicornChat","payload":{"@type":"type.googleapis.com/intentmesh.messaging.v1.SearchForMessagesIntent"}}}
      """.utf8)
    return [0] + bigEndian(UInt32(json.count)) + json
  }()

  @Test(
    "live web streams over HTTP/1.1 are carried by the relay as gRPC: one user's 24 open views hold up no other user's view or call"
  )
  func manyStreams() async throws {
    try await Harness.run { harness in
      let port = harness.port
      try await offThePool {
        func follow(as user: String) throws -> RawHTTP1Connection {
          let connection = try RawHTTP1Connection(port: port)
          connection.write(
            RawHTTP1Connection.request(
              "POST", "/intentmesh.v1.IntentsExtension/StartSendingUpdates",
              headers: [
                ("content-type", "application/connect+json"),
                ("authorization", "Bearer \(TestIdentity.token(for: user))"),
              ], body: Self.followMessages))
          return connection
        }
        var open: [RawHTTP1Connection] = []
        for _ in 0..<24 {
          let connection = try follow(as: "diana")
          let head = try connection.readHead()
          #expect(head.status == 200)
          #expect(head.header("transfer-encoding") == "chunked")
          open.append(connection)
        }
        // Scott's live view and a call of his are answered meanwhile.
        let scotts = try follow(as: "scott")
        #expect(try scotts.readHead().status == 200)
        let call = try RawHTTP1Connection(port: port)
        call.write(
          RawHTTP1Connection.request(
            "POST", "/intentmesh.gateway.v1.Gateway/ListRoutes", headers: [("content-type", "application/json")],
            body: Array("{}".utf8)))
        let routes = try call.readResponse()
        #expect(routes.status == 200)
        #expect(String(decoding: routes.body, as: UTF8.self).contains("INSendMessageIntent"))
        _ = open
      }
    }
  }

  /// Runs `body` on a thread of its own (see `offThePool`) with an HTTP/1.1 connection to the public
  /// port of a fresh harness, and that port.
  static func overHTTP1(
    cors: CORSPolicy = CORSPolicy(), limits: RelayLimits = .defaults, maxMessageBytes: Int = 4 << 20,
    _ body: @escaping @Sendable (RawHTTP1Connection, Int) throws -> Void
  ) async throws {
    try await Harness.run(limits: limits, cors: cors, maxMessageBytes: maxMessageBytes) { harness in
      let port = harness.port
      try await offThePool { try body(try RawHTTP1Connection(port: port), port) }
    }
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }

  /// The envelopes of a stream body (flags, payload), or nil when it is cut short.
  static func envelopes(_ body: [UInt8]) -> [(flags: UInt8, payload: [UInt8])]? {
    var result: [(flags: UInt8, payload: [UInt8])] = []
    var position = 0
    while position < body.count {
      guard body.count - position >= 5 else { return nil }
      let length = body[position + 1..<position + 5].reduce(0) { $0 << 8 | Int($1) }
      guard body.count - position - 5 >= length else { return nil }
      result.append((body[position], Array(body[position + 5..<position + 5 + length])))
      position += 5 + length
    }
    return result
  }
}
