import GRPCCore
import NIOCore
import NIOHPACK
import ProtoJSON
import ServiceKit
import Testing

@testable import Gateway

/// A Connect or gRPC-Web call as the relay carries it, without sockets: the gRPC request it
/// becomes, and the web answer each piece of the gRPC answer becomes, with the upstream bytes
/// each piece still owes.
@Suite("Gateway relay: web calls carried as gRPC")
struct WebCallTranslationTests {
  typealias Translation = WebCallTranslation
  static let schema = ProtoSchema(files: try! ReflectionIndex.embeddedFiles())
  static let check = "/grpc.health.v1.Health/Check"
  static let watch = "/grpc.health.v1.Health/Watch"
  /// grpc.health.v1.HealthCheckResponse{status: SERVING} in binary.
  static let serving: [UInt8] = [0x08, 0x01]

  static func translation(
    _ path: String = check, contentType: String, extra: [(String, String)] = [], method: String = "POST"
  ) -> Translation? {
    var headers = HPACKHeaders([
      (":method", method), (":scheme", "http"), (":path", path), (":authority", "gateway:8080"),
      ("content-type", contentType),
    ])
    for (name, value) in extra { headers.add(name: name, value: value) }
    return Translation(
      headers: headers, schema: schema, cors: CORSPolicy(origins: ["https://app.example"]), maxMessageBytes: 64,
      deadline: CallDeadline(defaultTimeout: .seconds(30), maximumTimeout: .seconds(60)))
  }

  static func envelope(_ payload: [UInt8], flags: UInt8 = 0) -> [UInt8] {
    ConnectEnvelope(flags: flags, payload: payload).bytes
  }

  static func bytes(_ item: RelayStream.Outgoing) -> [UInt8] {
    guard case .data(let data, _) = item else { return [] }
    return Array(data.readableBytesView)
  }

  static func text(_ item: RelayStream.Outgoing) -> String { String(decoding: bytes(item), as: UTF8.self) }

  static func headers(_ item: RelayStream.Outgoing) -> HPACKHeaders {
    guard case .headers(let headers, _) = item else { return [:] }
    return headers
  }

  static let grpcHead = HPACKHeaders([
    (":status", "200"), ("content-type", "application/grpc"), ("x-request-id", "r-1"),
  ])

  @Test("a Connect JSON request becomes a gRPC request: its headers as gRPC's, its body one framed binary message")
  func unaryRequest() throws {
    var web = try #require(
      Self.translation(
        contentType: "application/json",
        extra: [
          ("connect-protocol-version", "1"), ("connect-timeout-ms", "250"), ("authorization", "Bearer t"),
          ("x-custom", "v"), ("trace-bin", "AQI"), ("accept-encoding", "gzip"), ("origin", "https://app.example"),
        ]))
    let grpc = web.grpcHeaders
    #expect(grpc.first(name: "content-type") == "application/grpc")
    #expect(grpc.first(name: "te") == "trailers")
    #expect(grpc.first(name: ":path") == Self.check)
    #expect(grpc.first(name: ":authority") == "gateway:8080")
    #expect(grpc.first(name: "grpc-timeout") == "250000u")
    #expect(grpc.first(name: "authorization") == "Bearer t")
    #expect(grpc.first(name: "x-custom") == "v")
    #expect(grpc.first(name: "trace-bin") == "AQI=")  // padded, as gRPC sends binary metadata
    for dropped in ["connect-protocol-version", "connect-timeout-ms", "accept-encoding", "origin"] {
      #expect(grpc.first(name: dropped) == nil, "\(dropped) is the web protocol's")
    }
    let json = Array(#"{"service": "x"}"#.utf8)
    #expect(web.requestReceived(.data(ByteBuffer(bytes: json[..<5]), endStream: false)) == .collecting(held: 5))
    let step = web.requestReceived(.data(ByteBuffer(bytes: json[5...]), endStream: true))
    #expect(step == .complete(ByteBuffer(bytes: [0, 0, 0, 0, 3, 0x0A, 0x01, 0x78])))
    #expect(web.requestReceived(.data(ByteBuffer(bytes: [1]), endStream: true)) == .ignored)
  }

  @Test("a unary answer is held until its status: 200 with the message in JSON, metadata and trailer- headers")
  func unaryAnswer() throws {
    var web = try #require(
      Self.translation(contentType: "application/json", extra: [("origin", "https://app.example")]))
    _ = web.requestReceived(.data(ByteBuffer(), endStream: true))
    #expect(web.responseHeaders(Self.grpcHead, endStream: false) == Translation.Output())
    let data = ByteBuffer(bytes: Self.envelope(Self.serving))
    #expect(web.responseData(data, endStream: false) == Translation.Output(absorbed: 7))
    let end = web.responseHeaders(HPACKHeaders([("grpc-status", "0"), ("x-trailer", "t")]), endStream: true)
    #expect(end.absorbed == 0 && end.pieces.count == 2)
    let head = Self.headers(end.pieces[0].item)
    #expect(head.first(name: ":status") == "200")
    #expect(head.first(name: "content-type") == "application/json")
    #expect(head.first(name: "x-request-id") == "r-1")
    #expect(head.first(name: "trailer-x-trailer") == "t")
    #expect(head.first(name: "access-control-allow-origin") == "https://app.example")
    #expect(head.first(name: "content-length") == "\(#"{"status":"SERVING"}"#.utf8.count)")
    #expect(Self.text(end.pieces[1].item) == #"{"status":"SERVING"}"#)
    #expect(end.pieces[1].item.endsStream)
    #expect(web.isEnded)
  }

  @Test("a unary error: the Connect code's HTTP status and error object, its message percent-decoded")
  func unaryError() throws {
    var web = try #require(Self.translation(contentType: "application/proto"))
    let trailers = HPACKHeaders([
      (":status", "200"), ("content-type", "application/grpc"), ("grpc-status", "5"),
      ("grpc-message", "no%20such%20thing%C3%A9"),
    ])
    let end = web.responseHeaders(trailers, endStream: true)
    let head = Self.headers(end.pieces[0].item)
    #expect(head.first(name: ":status") == "404")
    #expect(head.first(name: "content-type") == "application/json")
    #expect(Self.text(end.pieces[1].item) == #"{"code":"not_found","message":"no such thingé"}"#)
  }

  @Test("Connect's stream in JSON: the head at once, each message when whole, then the end-of-stream object")
  func streamJSON() throws {
    var web = try #require(Self.translation(Self.watch, contentType: "application/connect+json"))
    let head = web.responseHeaders(Self.grpcHead, endStream: false)
    #expect(Self.headers(head.pieces[0].item).first(name: "content-type") == "application/connect+json")
    // One message over two DATA frames: nothing until it is whole; it then owes all 7 bytes.
    let message = Self.envelope(Self.serving)
    #expect(web.responseData(ByteBuffer(bytes: message[..<3]), endStream: false) == Translation.Output())
    let whole = web.responseData(ByteBuffer(bytes: message[3...] + message[..<2]), endStream: false)
    #expect(whole.pieces.count == 1 && whole.pieces[0].sourceBytes == 7 && whole.absorbed == 0)
    #expect(Self.bytes(whole.pieces[0].item) == Self.envelope(Array(#"{"status":"SERVING"}"#.utf8)))
    let rest = web.responseData(ByteBuffer(bytes: message[2...]), endStream: false)
    #expect(rest.pieces.map(\.sourceBytes) == [7])
    let end = web.responseHeaders(HPACKHeaders([("grpc-status", "0"), ("x-t", "1")]), endStream: true)
    #expect(end.pieces.count == 1 && end.pieces[0].item.endsStream)
    #expect(Self.bytes(end.pieces[0].item) == Self.envelope(Array(#"{"metadata":{"x-t":["1"]}}"#.utf8), flags: 2))
  }

  @Test(
    "a binary stream's frames pass as they are, owing what they carry; an error ends it in the end-of-stream object")
  func streamProto() throws {
    var web = try #require(Self.translation(Self.watch, contentType: "application/connect+proto"))
    _ = web.responseHeaders(Self.grpcHead, endStream: false)
    let frames = ByteBuffer(bytes: Self.envelope(Self.serving) + Self.envelope(Self.serving)[..<3])
    let passed = web.responseData(frames, endStream: false)
    #expect(passed.pieces == [Translation.Piece(item: .data(frames, endStream: false), sourceBytes: 10)])
    let end = web.responseHeaders(HPACKHeaders([("grpc-status", "16"), ("grpc-message", "expired")]), endStream: true)
    #expect(
      Self.bytes(end.pieces[0].item)
        == Self.envelope(
          Array(#"{"error":{"code":"unauthenticated","message":"expired"},"metadata":{}}"#.utf8), flags: 2))
  }

  @Test("gRPC-Web: frames as they are, the status in a trailers frame; as text, base64 both ways")
  func grpcWeb() throws {
    var binary = try #require(Self.translation(contentType: "application/grpc-web+proto"))
    _ = binary.responseHeaders(Self.grpcHead, endStream: false)
    #expect(binary.responseData(ByteBuffer(bytes: Self.envelope(Self.serving)), endStream: false).pieces.count == 1)
    let trailers = binary.responseHeaders(HPACKHeaders([("grpc-status", "0")]), endStream: true)
    #expect(Self.bytes(trailers.pieces[0].item) == Self.envelope(Array("grpc-status:0\r\n".utf8), flags: 0x80))

    var text = try #require(Self.translation(contentType: "application/grpc-web-text"))
    let body = GRPCWebText.encoded(Self.envelope([0x0A, 0x01, 0x78]))
    #expect(
      text.requestReceived(.data(ByteBuffer(bytes: body), endStream: true))
        == .complete(ByteBuffer(bytes: Self.envelope([0x0A, 0x01, 0x78]))))
    let head = text.responseHeaders(Self.grpcHead, endStream: false)
    #expect(Self.headers(head.pieces[0].item).first(name: "content-type") == "application/grpc-web-text+proto")
    let frame = text.responseData(ByteBuffer(bytes: Self.envelope(Self.serving)), endStream: false)
    #expect(Self.bytes(frame.pieces[0].item) == GRPCWebText.encoded(Self.envelope(Self.serving)))
    #expect(frame.pieces[0].sourceBytes == 7)
    let end = text.fail(.unavailable, message: "gone")
    #expect(
      GRPCWebText.decoded(Self.bytes(end[0].item))
        == Self.envelope(Array("grpc-status:14\r\ngrpc-message:gone\r\n".utf8), flags: 0x80))
  }

  @Test("a body that is not the method's one message is refused with the status the web side gives it")
  func refusedBodies() throws {
    var notJSON = try #require(Self.translation(contentType: "application/json"))
    guard case .refused(let failure) = notJSON.requestReceived(.data(ByteBuffer(string: "{"), endStream: true)) else {
      Issue.record("bad JSON taken")
      return
    }
    #expect(failure.code == .invalidArgument)
    var two = try #require(Self.translation(contentType: "application/connect+proto"))
    let twice = ByteBuffer(bytes: Self.envelope([]) + Self.envelope([]))
    #expect(
      two.requestReceived(.data(twice, endStream: true))
        == .refused(ConnectFailure(code: .invalidArgument, message: "the request is not one whole enveloped message")))
    var squeezed = try #require(Self.translation(contentType: "application/grpc-web"))
    guard
      case .refused(let compressed) = squeezed.requestReceived(
        .data(ByteBuffer(bytes: Self.envelope([1], flags: 1)), endStream: true))
    else {
      Issue.record("a compressed envelope taken")
      return
    }
    #expect(compressed.code == .unimplemented)
    var large = try #require(Self.translation(contentType: "application/proto"))
    #expect(
      large.requestReceived(.data(ByteBuffer(repeating: 1, count: 60), endStream: false)) == .collecting(held: 60))
    guard
      case .refused(let tooLarge) = large.requestReceived(.data(ByteBuffer(repeating: 1, count: 10), endStream: false))
    else {
      Issue.record("a body over the limit taken")
      return
    }
    #expect(tooLarge.code == .resourceExhausted)
    #expect(large.requestReceived(.data(ByteBuffer(repeating: 1, count: 10), endStream: true)) == .ignored)
  }

  @Test("what the relay does not carry stays the web side's: a GET, an unknown method, a unary form of a stream, gzip")
  func leftToTheWebSide() {
    #expect(Self.translation(contentType: "application/json", method: "GET") == nil)
    #expect(Self.translation("/no.Such/Method", contentType: "application/json") == nil)
    #expect(Self.translation(Self.watch, contentType: "application/json") == nil)
    #expect(Self.translation(contentType: "text/plain") == nil)
    #expect(Self.translation(contentType: "application/json", extra: [("content-encoding", "gzip")]) == nil)
    #expect(Self.translation(contentType: "application/json", extra: [("connect-protocol-version", "2")]) == nil)
    #expect(Self.translation(contentType: "application/json") != nil)
  }

  @Test("a JSON message larger than half a window is held and its bytes granted back at once, so it comes whole")
  func largeMessageAbsorbed() throws {
    var web = try #require(Self.translation(Self.watch, contentType: "application/connect+json"))
    _ = web.responseHeaders(Self.grpcHead, endStream: false)
    var prefix = ByteBuffer()
    prefix.writeInteger(UInt8(0))
    prefix.writeInteger(UInt32(RelaySettings.initialWindowSize))
    var first = prefix
    first.writeRepeatingByte(0, count: RelaySettings.initialWindowSize / 2)
    let held = web.responseData(first, endStream: false)
    #expect(held.pieces.isEmpty && held.absorbed == first.readableBytes)
  }

  @Test("an answer the upstream ends without a status, or with another HTTP status, is an error")
  func brokenAnswers() throws {
    var noStatus = try #require(Self.translation(Self.watch, contentType: "application/connect+proto"))
    _ = noStatus.responseHeaders(Self.grpcHead, endStream: false)
    let ended = noStatus.responseData(ByteBuffer(), endStream: true)
    #expect(ended.pieces.last?.item.endsStream == true)
    #expect(Self.text(ended.pieces.last!.item).contains("internal"))
    var http = try #require(Self.translation(contentType: "application/json"))
    let refused = http.responseHeaders(HPACKHeaders([(":status", "503")]), endStream: true)
    #expect(Self.headers(refused.pieces[0].item).first(name: ":status") == "503")  // unavailable
  }
}

@Suite("Gateway relay: the credit a translated piece owes")
struct CreditLedgerTests {
  @Test("bytes owed are granted back in proportion as a piece leaves, the rest with its last byte, exactly once")
  func proportional() {
    var ledger = CreditLedger()
    #expect(ledger.record(carried: 8, source: 6) == 0)
    #expect(ledger.record(carried: 3, source: 0) == 0)
    #expect(ledger.record(carried: 0, source: 5) == 5)  // a piece that carries nothing: at once
    #expect(ledger.record(carried: 4, source: 4) == 0)
    #expect(ledger.owed == 10)
    #expect(ledger.sent(4) == 3)
    #expect(ledger.sent(3) == 2)
    #expect(ledger.sent(1) == 1)  // the first piece whole: 6 in all
    #expect(ledger.sent(5) == 2)  // the second (nothing owed), half the third
    #expect(ledger.sent(10) == 2)  // beyond what was recorded: nothing more
    #expect(ledger.owed == 0)
  }
}

@Suite("Gateway web side: application/grpc-web-text")
struct GRPCWebTextTests {
  @Test("base64 pieces, each padded, one after the other: decoded as one body")
  func pieces() {
    let bytes: [UInt8] = Array(0..<200).map { UInt8($0) }
    for cut in [0, 1, 2, 3, 100, 199] {
      let text = GRPCWebText.encoded(bytes[..<cut]) + GRPCWebText.encoded(bytes[cut...])
      #expect(GRPCWebText.decoded(text) == bytes)
    }
    #expect(GRPCWebText.encoded(Array("hi".utf8)) == Array("aGk=".utf8))
    #expect(GRPCWebText.decoded(Array("aGk=\r\naGk=".utf8)) == Array("hihi".utf8))
    for bad in ["aGk", "a===", "aG=k", "a*k=", "aGk=a"] {
      #expect(GRPCWebText.decoded(Array(bad.utf8)) == nil, "\(bad)")
    }
  }
}
