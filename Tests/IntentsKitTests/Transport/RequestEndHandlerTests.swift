import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
@testable import ServiceKit
import Testing

/// `RequestEndHandler` in front of a stand-in for the transport's gRPC handler, on an
/// `EmbeddedChannel`: what reaches the gRPC handler and what goes out to the client.
@Suite("RequestEndHandler: a cut-short request gets INTERNAL, an end on HEADERS reaches the transport as DATA")
struct RequestEndHandlerTests {
  /// Records what the gRPC handler would have read. @unchecked Sendable: `read` is touched only on
  /// the EmbeddedChannel's loop, which is the test's own thread.
  final class Recorder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTP2Frame.FramePayload
    var read: [HTTP2Frame.FramePayload] = []
    func channelRead(context: ChannelHandlerContext, data: NIOAny) { read.append(unwrapInboundIn(data)) }
  }

  static let requestHeaderList: HPACKHeaders = [
    ":method": "POST", ":path": "/a.B/C", "content-type": "application/grpc",
  ]
  static let requestHeaders = HTTP2Frame.FramePayload.headers(.init(headers: requestHeaderList))

  static func data(_ bytes: [UInt8], end: Bool) -> HTTP2Frame.FramePayload {
    .data(.init(data: .byteBuffer(ByteBuffer(bytes: bytes)), endStream: end))
  }

  /// `handler` in front of a recorder, with `request` (the request's HEADERS) read.
  static func channel(
    _ handler: RequestEndHandler = RequestEndHandler(), request: HTTP2Frame.FramePayload = requestHeaders
  ) throws -> (EmbeddedChannel, Recorder) {
    let recorder = Recorder()
    let channel = EmbeddedChannel(handlers: [handler, recorder])
    try channel.writeInbound(request)
    return (channel, recorder)
  }

  static func headers(_ payload: HTTP2Frame.FramePayload?) -> (HPACKHeaders, Bool)? {
    guard case .headers(let headers)? = payload else { return nil }
    return (headers.headers, headers.endStream)
  }

  @Test("Cut inside the prefix before any answer: trailers-only INTERNAL; the gRPC handler never sees END_STREAM")
  func trailersOnly() throws {
    let (channel, recorder) = try Self.channel()
    try channel.writeInbound(Self.data([0, 0, 0], end: true))
    let (headers, end) = try #require(Self.headers(try channel.readOutbound()))
    #expect(end)
    #expect(headers.first(name: ":status") == "200")
    #expect(headers.first(name: "content-type") == "application/grpc")
    #expect(headers.first(name: "grpc-status") == "13")
    #expect(headers.first(name: "grpc-message")?.hasPrefix("Incomplete request message") == true)
    #expect(recorder.read.count == 1)  // the request's headers only

    // What the gRPC handler writes afterwards is dropped, and its promise fails.
    let promise = channel.eventLoop.makePromise(of: Void.self)
    channel.write(HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"])), promise: promise)
    channel.flush()
    #expect(throws: ChannelError.self) { try promise.futureResult.wait() }
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
  }

  @Test("Cut inside a body after the response started: trailers without :status")
  func trailersAfterHeaders() throws {
    let (channel, recorder) = try Self.channel()
    try channel.writeOutbound(HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"])))
    _ = try channel.readOutbound(as: HTTP2Frame.FramePayload.self)
    try channel.writeInbound(Self.data([0, 0, 0, 0, 100], end: false))
    try channel.writeInbound(Self.data(Array(repeating: 1, count: 10), end: true))
    let (headers, end) = try #require(Self.headers(try channel.readOutbound()))
    #expect(end)
    #expect(headers.first(name: ":status") == nil)
    #expect(headers.first(name: "grpc-status") == "13")
    #expect(
      headers.first(name: "grpc-message")
        == "Incomplete request message: the request ended 10 bytes into a message whose prefix promised 100 bytes")
    #expect(recorder.read.count == 2)  // headers and the first DATA, not the cut-short end
  }

  @Test("A whole request passes through untouched, END_STREAM included")
  func wholeRequestPassesThrough() throws {
    let (channel, recorder) = try Self.channel()
    try channel.writeInbound(Self.data([0, 0, 0, 0, 2, 8, 1], end: true))
    #expect(recorder.read.count == 2)
    guard case .data(let frame)? = recorder.read.last else {
      Issue.record("no DATA: \(recorder.read)")
      return
    }
    #expect(frame.endStream)
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
  }

  @Test("Once the server ended the call, a cut-short end has nothing to answer and passes through")
  func serverAlreadyEnded() throws {
    let (channel, recorder) = try Self.channel()
    try channel.writeOutbound(
      HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200", "grpc-status": "12"], endStream: true)))
    _ = try channel.readOutbound(as: HTTP2Frame.FramePayload.self)
    try channel.writeInbound(Self.data([0, 0], end: true))
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    #expect(recorder.read.count == 2)
  }

  @Test("END_STREAM on the request's HEADERS: the headers without it, then an empty DATA frame with it")
  func endOnHeaders() throws {
    let recorder = Recorder()
    let channel = EmbeddedChannel(handlers: [RequestEndHandler(), recorder])
    try channel.writeInbound(
      HTTP2Frame.FramePayload.headers(.init(headers: [":method": "POST", ":path": "/a.B/C"], endStream: true)))
    #expect(recorder.read.count == 2)
    guard case .headers(let headers)? = recorder.read.first, case .data(let end)? = recorder.read.last else {
      Issue.record("not headers then data: \(recorder.read)")
      return
    }
    #expect(!headers.endStream)
    #expect(headers.headers.first(name: ":path") == "/a.B/C")
    #expect(end.endStream)
    if case .byteBuffer(let bytes) = end.data { #expect(bytes.readableBytes == 0) }
  }

  @Test("Request trailers end the request as an empty DATA frame, or as INTERNAL when a message was cut short")
  func requestTrailers() throws {
    let (whole, wholeRecorder) = try Self.channel()
    try whole.writeInbound(Self.data([0, 0, 0, 0, 1, 8], end: false))
    try whole.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: ["x-trailer": "1"], endStream: true)))
    #expect(wholeRecorder.read.count == 3)
    if case .data(let end)? = wholeRecorder.read.last { #expect(end.endStream) } else { Issue.record("no end") }
    #expect(try whole.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)

    let (cut, cutRecorder) = try Self.channel()
    try cut.writeInbound(Self.data([0, 0, 0, 0, 9, 8], end: false))
    try cut.writeInbound(HTTP2Frame.FramePayload.headers(.init(headers: ["x-trailer": "1"], endStream: true)))
    #expect(cutRecorder.read.count == 2)
    let (headers, end) = try #require(Self.headers(try cut.readOutbound()))
    #expect(end)
    #expect(headers.first(name: "grpc-status") == "13")
  }

  @Test(
    "An uncompressed message over the limit: RESOURCE_EXHAUSTED from its prefix, naming both sizes; the stream reset")
  func oversizedMessage() throws {
    let (channel, recorder) = try Self.channel(RequestEndHandler(messageLimit: 100))
    try channel.writeInbound(Self.data([0, 0, 0, 0, 100] + Array(repeating: 1, count: 100), end: false))
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)  // at the limit: passed on
    try channel.writeInbound(Self.data([0, 0, 0, 0, 101, 1, 1], end: false))
    let (headers, end) = try #require(Self.headers(try channel.readOutbound()))
    #expect(end)
    #expect(headers.first(name: ":status") == "200")
    #expect(headers.first(name: "grpc-status") == "8")
    #expect(
      headers.first(name: "grpc-message")
        == "a.B/C: the request message is 101 bytes; this service accepts at most 100 (--max-message-bytes)")
    guard case .rstStream(let code)? = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else {
      Issue.record("no RST_STREAM")
      return
    }
    #expect(code == .noError)
    // The gRPC handler saw the headers and the first message, nothing of the oversized one or after.
    #expect(recorder.read.count == 2)
    try channel.writeInbound(Self.data(Array(repeating: 1, count: 99), end: true))
    #expect(recorder.read.count == 2)
    let promise = channel.eventLoop.makePromise(of: Void.self)
    channel.write(HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"])), promise: promise)
    channel.flush()
    #expect(throws: ChannelError.self) { try promise.futureResult.wait() }
  }

  @Test("A compressed message over the limit passes on (its size is known decompressed); none without a limit")
  func oversizedCompressedOrUnlimited() throws {
    for (handler, flag) in [(RequestEndHandler(messageLimit: 10), UInt8(1)), (RequestEndHandler(), 0)] {
      let (channel, recorder) = try Self.channel(handler)
      try channel.writeInbound(Self.data([flag, 0, 0, 0, 50] + Array(repeating: 1, count: 50), end: true))
      #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
      #expect(recorder.read.count == 2)
    }
  }

  static func timedRequest(_ timeout: String, end: Bool = false) -> HTTP2Frame.FramePayload {
    var headers = requestHeaderList
    headers.add(name: "grpc-timeout", value: timeout)
    return .headers(.init(headers: headers, endStream: end))
  }

  @Test(
    "A deadline it enforces: grpc-timeout kept from the gRPC handler; past it, DEADLINE_EXCEEDED, later writes dropped"
  )
  func deadlinePassed() throws {
    let (channel, recorder) = try Self.channel(
      RequestEndHandler(enforcesDeadline: true), request: Self.timedRequest("50m"))
    try channel.writeInbound(Self.data([0, 0, 0, 0, 1, 7], end: true))
    let (seen, _) = try #require(Self.headers(recorder.read.first))
    #expect(seen.first(name: "grpc-timeout") == nil)
    #expect(seen.first(name: ":path") == "/a.B/C")
    channel.embeddedEventLoop.advanceTime(by: .milliseconds(49))
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
    let (headers, end) = try #require(Self.headers(try channel.readOutbound()))
    #expect(end)
    #expect(headers.first(name: ":status") == "200")
    #expect(headers.first(name: "grpc-status") == "4")
    #expect(headers.first(name: "grpc-message") == "a.B/C: the call ran past its deadline (grpc-timeout 50m)")
    // The request had ended: no reset, the answer's END_STREAM closes the stream.
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    let promise = channel.eventLoop.makePromise(of: Void.self)
    channel.write(HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"])), promise: promise)
    channel.flush()
    #expect(throws: ChannelError.self) { try promise.futureResult.wait() }
  }

  @Test(
    "Past the deadline of a call still streaming both ways: trailers after the response's headers, then RST_STREAM CANCEL"
  )
  func deadlinePassedMidStream() throws {
    let (channel, recorder) = try Self.channel(
      RequestEndHandler(enforcesDeadline: true), request: Self.timedRequest("2S"))
    try channel.writeOutbound(HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200"])))
    _ = try channel.readOutbound(as: HTTP2Frame.FramePayload.self)
    channel.embeddedEventLoop.advanceTime(by: .seconds(2))
    let (headers, end) = try #require(Self.headers(try channel.readOutbound()))
    #expect(end && headers.first(name: ":status") == nil && headers.first(name: "grpc-status") == "4")
    guard case .rstStream(let code)? = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else {
      Issue.record("no RST_STREAM")
      return
    }
    #expect(code == .cancel)
    // The rest of the request is not passed on.
    try channel.writeInbound(Self.data([0, 0, 0, 0, 1, 7], end: false))
    #expect(recorder.read.count == 1)
  }

  @Test("A call answered in time is left alone; an invalid grpc-timeout, or one not enforced here, passes on")
  func deadlineMetOrNotEnforced() throws {
    let (channel, recorder) = try Self.channel(
      RequestEndHandler(enforcesDeadline: true), request: Self.timedRequest("10m", end: true))
    // The handler keeps the deadline: grpc-swift is not handed it.
    let (passedOn, _) = try #require(Self.headers(recorder.read.first))
    #expect(passedOn.first(name: "grpc-timeout") == nil)
    try channel.writeOutbound(
      HTTP2Frame.FramePayload.headers(.init(headers: [":status": "200", "grpc-status": "0"], endStream: true)))
    _ = try channel.readOutbound(as: HTTP2Frame.FramePayload.self)
    channel.embeddedEventLoop.advanceTime(by: .seconds(1))
    #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    for (handler, timeout) in [(RequestEndHandler(enforcesDeadline: true), "5.0S"), (RequestEndHandler(), "10m")] {
      let (channel, recorder) = try Self.channel(handler, request: Self.timedRequest(timeout))
      let (seen, _) = try #require(Self.headers(recorder.read.first))
      #expect(seen.first(name: "grpc-timeout") == timeout)
      channel.embeddedEventLoop.advanceTime(by: .seconds(10))
      #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    }
  }
}
