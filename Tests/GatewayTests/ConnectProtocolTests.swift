import Foundation
import GRPCCore
import IntentsKitTesting
import NIOCore
import NIOEmbedded
import ProtoJSON
@testable import ServiceKit
import Testing

@testable import Gateway

/// The Connect and gRPC-Web pieces as values, without a socket: content types, envelopes, codes,
/// CORS, metadata, and what the public port and the relay decide from a request's first bytes.
@Suite("Gateway web side: the protocol as values")
struct ConnectProtocolTests {
  @Test("content types: Connect unary and streaming, gRPC-Web, each JSON or binary; anything else is none")
  func kinds() {
    #expect(ConnectRequestKind(contentType: "application/json") == .unary(.json))
    #expect(ConnectRequestKind(contentType: "application/json; charset=utf-8") == .unary(.json))
    #expect(ConnectRequestKind(contentType: "Application/Proto") == .unary(.proto))
    #expect(ConnectRequestKind(contentType: "application/connect+json") == .stream(.json))
    #expect(ConnectRequestKind(contentType: "application/connect+proto") == .stream(.proto))
    #expect(ConnectRequestKind(contentType: "application/grpc-web") == .grpcWeb(.proto))
    #expect(ConnectRequestKind(contentType: "application/grpc-web+json") == .grpcWeb(.json))
    #expect(ConnectRequestKind(contentType: "application/grpc") == nil)
    #expect(ConnectRequestKind(contentType: "text/plain") == nil)
    #expect(ConnectRequestKind.stream(.proto).responseContentType == "application/connect+proto")
  }

  @Test("envelopes: flags, big-endian length, payload; a body cut short is refused")
  func envelopes() {
    let one = ConnectEnvelope(flags: 2, payload: Array("{}".utf8))
    #expect(one.bytes == [2, 0, 0, 0, 2, 0x7B, 0x7D])
    let two = one.bytes + ConnectEnvelope(flags: 0, payload: []).bytes
    #expect(ConnectEnvelope.split(two) == [one, ConnectEnvelope(flags: 0, payload: [])])
    #expect(ConnectEnvelope.split([]) == [])
    #expect(ConnectEnvelope.split([0, 0, 0]) == nil)
    #expect(ConnectEnvelope.split([0, 0, 0, 0, 3, 1, 2]) == nil)
    #expect(ConnectEnvelope.split([0, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
  }

  @Test("every gRPC code has its Connect name and HTTP status")
  func codes() {
    let expected: [(RPCError.Code, String, Int)] = [
      (.cancelled, "canceled", 499), (.unknown, "unknown", 500), (.invalidArgument, "invalid_argument", 400),
      (.deadlineExceeded, "deadline_exceeded", 504), (.notFound, "not_found", 404),
      (.alreadyExists, "already_exists", 409), (.permissionDenied, "permission_denied", 403),
      (.resourceExhausted, "resource_exhausted", 429), (.failedPrecondition, "failed_precondition", 400),
      (.aborted, "aborted", 409), (.outOfRange, "out_of_range", 400), (.unimplemented, "unimplemented", 501),
      (.internalError, "internal", 500), (.unavailable, "unavailable", 503), (.dataLoss, "data_loss", 500),
      (.unauthenticated, "unauthenticated", 401),
    ]
    for (code, name, status) in expected {
      #expect(ConnectCode.name(code) == name)
      #expect(ConnectCode.httpStatus(code) == status)
    }
  }

  @Test("CORS: only configured origins, * for any; preflights refuse other origins, methods and hop-by-hop headers")
  func cors() throws {
    let policy = CORSPolicy(origins: ["https://app.example.com/"])
    #expect(policy.responseHeaders(origin: nil).isEmpty)
    #expect(policy.responseHeaders(origin: "https://other.example").isEmpty)
    let headers = policy.responseHeaders(origin: "https://app.example.com")
    #expect(headers.first { $0.0 == "access-control-allow-origin" }?.1 == "https://app.example.com")
    let preflight = try #require(
      policy.preflight(origin: "https://app.example.com", method: "POST", headers: "Content-Type, X-Custom"))
    #expect(preflight.first { $0.0 == "access-control-allow-headers" }?.1.contains("x-custom") == true)
    #expect(policy.preflight(origin: "https://app.example.com", method: "DELETE", headers: nil) == nil)
    #expect(policy.preflight(origin: "https://app.example.com", method: "POST", headers: "connection") == nil)
    #expect(policy.preflight(origin: "https://other.example", method: "POST", headers: nil) == nil)
    let any = CORSPolicy(origins: ["*"])
    #expect(any.responseHeaders(origin: "https://x.example").first?.1 == "*")
  }

  @Test("request headers become metadata: transport and browser headers dropped, -bin values decoded")
  func metadata() throws {
    let metadata = try WebCallRequest.metadata([
      ("authorization", "Bearer x"), ("content-type", "application/json"), ("user-agent", "curl"),
      ("sec-fetch-mode", "cors"), ("x-trace", "abc"), ("trace-bin", "AAEC"), ("connect-timeout-ms", "5"),
    ])
    #expect(Array(metadata[stringValues: "authorization"]) == ["Bearer x"])
    #expect(Array(metadata[stringValues: "x-trace"]) == ["abc"])
    #expect(Array(metadata[binaryValues: "trace-bin"]) == [[0, 1, 2]])
    #expect(metadata[stringValues: "content-type"].first(where: { _ in true }) == nil)
    #expect(metadata[stringValues: "sec-fetch-mode"].first(where: { _ in true }) == nil)
    #expect(throws: ConnectFailure.self) { try WebCallRequest.metadata([("trace-bin", "***")]) }
  }

  @Test("timeouts: Connect-Timeout-Ms for Connect, grpc-timeout for gRPC-Web; bad values are INVALID_ARGUMENT")
  func timeouts() throws {
    #expect(
      try WebCallRequest.timeout(headers: [("connect-timeout-ms", "250")], kind: .unary(.json)) == .milliseconds(250))
    #expect(try WebCallRequest.timeout(headers: [], kind: .unary(.json)) == nil)
    #expect(try WebCallRequest.timeout(headers: [("grpc-timeout", "2S")], kind: .grpcWeb(.proto)) == .seconds(2))
    for bad in ["-1", "12345678901", "1.5", ""] {
      #expect(throws: ConnectFailure.self) {
        try WebCallRequest.timeout(headers: [("connect-timeout-ms", bad)], kind: .unary(.json))
      }
    }
  }

  @Test("gRPC-Web trailers: status, message percent-encoded as gRPC does, trailers as header lines")
  func grpcWebTrailers() {
    var trailers = Metadata()
    trailers.addString("v", forKey: "x-extra")
    let frame = ConnectMetadata.grpcWebTrailers(code: 3, message: "100% wrong: é", trailers: trailers)
    #expect(frame.first == 0x80)
    #expect(
      String(decoding: frame.dropFirst(5), as: UTF8.self)
        == "grpc-status:3\r\ngrpc-message:100%25 wrong: %C3%A9\r\nx-extra:v\r\n")
  }

  @Test("the public port tells HTTP/2's preface from HTTP/1.1 by the first bytes, waiting while they could be either")
  func sniffing() {
    let preface = PublicPortSniffer.preface
    #expect(PublicPortSniffer.verdict(preface) == .http2)
    #expect(PublicPortSniffer.verdict(preface + [0, 0, 0]) == .http2)
    #expect(PublicPortSniffer.verdict(preface.prefix(10)) == .undecided)
    #expect(PublicPortSniffer.verdict([]) == .undecided)
    #expect(PublicPortSniffer.verdict(Array("POST / HTTP/1.1\r\n".utf8)) == .http1)
    #expect(PublicPortSniffer.verdict(Array("PRI * HTTP/1.1".utf8)) == .http1)
  }

  @Test("the relay hands non-gRPC streams to the web side: pages, preflights, Connect and gRPC-Web, not gRPC")
  func relayRouting() {
    #expect(RelayRouter.isForWebSide(method: "POST", contentType: "application/grpc") == false)
    #expect(RelayRouter.isForWebSide(method: "POST", contentType: "application/grpc+proto") == false)
    #expect(RelayRouter.isForWebSide(method: "POST", contentType: nil) == true)
    #expect(RelayRouter.isForWebSide(method: "POST", contentType: "application/json") == true)
    #expect(RelayRouter.isForWebSide(method: "POST", contentType: "application/grpc-web+proto") == true)
    #expect(RelayRouter.isForWebSide(method: "GET", contentType: nil) == true)
    #expect(RelayRouter.isForWebSide(method: "OPTIONS", contentType: nil) == true)
  }

  @Test("HTTP/1.1 deadlines: idle → receiving on the first byte → answering → idle; each phase's timer closes")
  func deadlines() throws {
    let channel = EmbeddedChannel()
    let deadlines = HTTP1Deadlines(requestTimeout: .seconds(2), idleTimeout: .seconds(10))
    try channel.pipeline.syncOperations.addHandler(deadlines)
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    #expect(deadlines.phase == .idle)
    try channel.writeInbound(ByteBuffer(string: "POST"))
    #expect(deadlines.phase == .receiving)
    deadlines.requestReceived()
    #expect(deadlines.phase == .answering)
    channel.embeddedEventLoop.advanceTime(by: .seconds(60))
    #expect(channel.isActive, "no timer while answering")
    deadlines.responseSent()
    #expect(deadlines.phase == .idle)
    try channel.writeInbound(ByteBuffer(string: "GE"))
    channel.embeddedEventLoop.advanceTime(by: .seconds(3))
    #expect(!channel.isActive, "a request not whole within 2 s closes the connection")
  }

  @Test("web pages: / is index.html; only flat names with a known extension; the embedded copy has an ETag")
  func pages() throws {
    #expect(WebPages.fileName(for: "/") == "index.html")
    #expect(WebPages.fileName(for: "/app.js") == "app.js")
    for refused in ["/../etc/passwd", "/a/b.js", "/.hidden.js", "/secret", "/x.swift", "", "app.js"] {
      #expect(WebPages.fileName(for: refused) == nil, "\(refused)")
    }
    let index = try #require(WebPages().page(for: "/"))
    #expect(index.contentType == "text/html; charset=utf-8")
    #expect(index.etag == "\"\(WebAssets.version)\"")
    #expect(String(decoding: index.body, as: UTF8.self).contains("<html"))
    #expect(WebPages().page(for: "/missing.js") == nil)
  }

  @Test("web pages from a folder (--web-root): its files, nothing outside it")
  func pagesFromFolder() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("web-root-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try Data("console.log(1)".utf8).write(to: folder.appendingPathComponent("app.js"))
    let pages = WebPages(root: folder.path)
    #expect(pages.page(for: "/app.js")?.body == Array("console.log(1)".utf8))
    #expect(pages.page(for: "/app.js")?.contentType == "text/javascript; charset=utf-8")
    #expect(pages.page(for: "/index.html") == nil)
    #expect(pages.page(for: "/../app.js") == nil)
  }

  @Test("development tokens: for a valid user name only, signed by the local identity")
  func devTokens() throws {
    let tokens = DevTokens(issuer: TestIdentity.issuer, secret: "s3cret-of-this-run-0123456789abcdef")
    let (status, json) = tokens.answer(Array(#"{"user":"diana"}"#.utf8))
    #expect(status == 200)
    let token = try #require(json["token"]?.stringValue)
    #expect(token.split(separator: ".").count == 3)
    for bad in [
      #"{"user":""}"#, #"{"user":"../x"}"#, #"{"user":"a b"}"#, #"{}"#, "nope",
      #"{"user":"\#(String(repeating: "a", count: 65))"}"#,
    ] {
      #expect(tokens.answer(Array(bad.utf8)).status == 400, "\(bad)")
    }
    #expect(DevTokens.isValidUser("ava.b-c_1"))
  }

  @Test("development tokens only for pages on this machine: loopback Host, loopback or no Origin, no proxy")
  func devTokenGate() {
    func request(_ headers: [(String, String)]) -> WebRequest {
      WebRequest(method: "POST", uri: "/dev/token", headers: headers)
    }
    #expect(DevTokens.isFromThisMachine(request([("host", "127.0.0.1:50060")])))
    #expect(DevTokens.isFromThisMachine(request([("host", "localhost:50060"), ("origin", "http://localhost:50060")])))
    #expect(DevTokens.isFromThisMachine(request([("host", "[::1]:50060")])))
    #expect(!DevTokens.isFromThisMachine(request([])))
    #expect(!DevTokens.isFromThisMachine(request([("host", "evil.example:50060")])), "DNS rebinding")
    #expect(!DevTokens.isFromThisMachine(request([("host", "127.0.0.1"), ("origin", "https://evil.example")])))
    #expect(!DevTokens.isFromThisMachine(request([("host", "127.0.0.1"), ("x-forwarded-for", "203.0.113.9")])))
    #expect(!DevTokens.isFromThisMachine(request([("host", "127.0.0.1.evil.example")])))
  }

  @Test(
    "development tokens only with this run's secret: a forwarded request (loopback Host, no Origin, no proxy headers) without it, with another run's or with a prefix of it is refused"
  )
  func devTokenSecret() throws {
    let secret = DevTokenSecret.make()
    let tokens = DevTokens(issuer: TestIdentity.issuer, secret: secret)
    func request(_ headers: [(String, String)]) -> WebRequest {
      WebRequest(method: "POST", uri: "/dev/token", headers: [("host", "127.0.0.1:50060")] + headers)
    }
    // What `ssh -L`, socat, kubectl port-forward or nginx's proxy_pass to 127.0.0.1 deliver: no
    // Origin, no forwarding header, a loopback Host. Only the secret tells the starter's page.
    #expect(DevTokens.isFromThisMachine(request([])))
    #expect(!tokens.admits(request([])))
    #expect(!tokens.admits(request([(DevTokenSecret.header, DevTokenSecret.make())])), "another run's secret")
    #expect(!tokens.admits(request([(DevTokenSecret.header, String(secret.dropLast()))])), "a prefix")
    #expect(!tokens.admits(request([(DevTokenSecret.header, "")])))
    #expect(tokens.admits(request([(DevTokenSecret.header, secret)])))
    #expect(tokens.admits(request([(DevTokenSecret.header, secret), ("origin", "http://127.0.0.1:50060")])))
    #expect(!tokens.admits(request([(DevTokenSecret.header, secret), ("x-forwarded-for", "203.0.113.9")])))
    #expect(secret.utf8.count == 43)
    #expect(
      DevTokenSecret.webAddress("http://127.0.0.1:50060/", secret: secret) == "http://127.0.0.1:50060/#dev=\(secret)")
  }

  @Test("the secret file: made 0600 in a 0700 folder, renewed whole by each run, refused when it holds no secret")
  func devTokenSecretFile() throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dev-secret-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: folder) }
    let first = try DevTokenSecret.loadOrCreate(in: folder)
    #expect(try DevTokenSecret.loadOrCreate(in: folder) == first)
    let file = folder.appendingPathComponent(DevTokenSecret.fileName).path
    #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
    #expect((try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int) == 0o700)
    let renewed = try DevTokenSecret.renew(in: folder)
    #expect(renewed != first)
    #expect(try DevTokenSecret.loadOrCreate(in: folder) == renewed)
    #expect((try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int) == 0o600)
    try Data("short\n".utf8).write(to: URL(fileURLWithPath: file))
    #expect(throws: (any Error).self) { try DevTokenSecret.loadOrCreate(in: folder) }
  }

  @Test(
    "upstream metadata never sets CORS, cookies or security headers, nor a name HTTP cannot carry; gRPC-Web errors carry their details"
  )
  func responseHeaders() {
    var metadata = Metadata()
    metadata.addString("a", forKey: "x-request-id")
    // An upstream's HPACK may decode to any name; written again, NIOHPACK would trap on this one.
    metadata.addString("1", forKey: "x-caf\u{e9}")
    metadata.addString("1", forKey: "x-with space")
    metadata.addString("*", forKey: "access-control-allow-origin")
    metadata.addString("s=1", forKey: "set-cookie")
    metadata.addString("none", forKey: "content-security-policy")
    #expect(ConnectMetadata.headers(of: metadata).map(\.0) == ["x-request-id"])
    let frame = ConnectMetadata.grpcWebTrailers(code: 16, message: "no", trailers: Metadata(), details: [1, 2, 3])
    #expect(String(decoding: frame.dropFirst(5), as: UTF8.self).contains("grpc-status-details-bin:AQID\r\n"))
  }
}
