internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP2

/// Makes every way an HTTP/2 request can end reach the transport's gRPC handler as one it answers:
/// - a request whose last gRPC message END_STREAM cuts short is answered INTERNAL with a message
///   that says so — gRPC's status for a request it cannot parse. Without this the transport drops
///   the partial bytes: a unary method then fails with INTERNAL "Empty stream." and a streaming one
///   ends OK, as if the client had sent nothing;
/// - END_STREAM on a HEADERS frame (a request with no body, or request trailers) is passed on as an
///   empty DATA frame with END_STREAM. The transport only notices the end of a request on DATA: on
///   HEADERS the call never hears that its input ended and hangs until the connection closes.
///
/// - an uncompressed request message whose length prefix says it is over the service's limit
///   (`--max-message-bytes`) is answered RESOURCE_EXHAUSTED as soon as its prefix arrives, naming
///   both sizes, and the stream is reset (NO_ERROR: the client may stop sending); its bytes never
///   reach the gRPC handler. A compressed message's size is known only once decompressed:
///   `MessageSizeInterceptor` checks those;
/// - when it enforces deadlines (a domain service's streams), the request's `grpc-timeout` is taken
///   off the headers the gRPC handler sees and kept here, as a timer on the stream's event loop: when
///   it fires before the response has ended, the call is answered DEADLINE_EXCEEDED and the stream
///   closes, which cancels the call (`ServerContext.cancellation`). grpc-swift's own enforcement
///   runs every call with a timeout in a task group with a sleeping child task — a timer of the
///   global executor's, whose thread wakes to arm and cancel it: ~10 µs of CPU a call.
///
/// Sits first in each HTTP/2 stream's pipeline, before the transport's gRPC handler: it counts the
/// request's framing (`RequestFraming`), watches whether the response has started, and when it answers
/// a request itself writes the status (trailers-only, or trailers after the response's headers), holds
/// the rest of the request back from the gRPC handler and drops what that handler writes afterwards;
/// the stream then closes, which cancels the call.
final class RequestEndHandler: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = HTTP2Frame.FramePayload
  typealias InboundOut = HTTP2Frame.FramePayload
  typealias OutboundIn = HTTP2Frame.FramePayload
  typealias OutboundOut = HTTP2Frame.FramePayload

  /// The response as this handler has seen it written.
  private enum Response {
    case notStarted
    case headersSent
    /// The server's END_STREAM went out: whatever the request does now, the call is answered.
    case ended
    /// This handler answered the request (cut short, too large, or past its deadline); the gRPC
    /// handler's writes are dropped, and so is the rest of the request.
    case answered
  }

  private var framing: RequestFraming
  private var response = Response.notStarted
  /// Whether the request's HEADERS went on to the gRPC handler.
  private var requestStarted = false
  /// The request's HEADERS, kept for the method an answer names (read only then: on every call it
  /// would cost more than the rest of this handler).
  private var requestHeaders: HPACKHeaders?
  /// Whether the request has ended (its END_STREAM arrived): past the deadline, a request still
  /// open is reset as well as answered.
  private var requestEnded = false
  private let enforcesDeadline: Bool
  /// The timer that answers DEADLINE_EXCEEDED, while the call runs.
  private var deadline: Scheduled<Void>?

  /// `messageLimit`: the most bytes a request message may have (nil: the transport's own cap only).
  /// `enforcesDeadline`: the request's `grpc-timeout` is kept here rather than passed on.
  init(messageLimit: Int? = nil, enforcesDeadline: Bool = false) {
    framing = RequestFraming(messageLimit: messageLimit)
    self.enforcesDeadline = enforcesDeadline
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .answered = response { return }
    switch unwrapInboundIn(data) {
    case .headers(var headers) where headers.endStream:
      if !requestStarted {
        requestStarted = true
        takeDeadline(from: &headers.headers, context: context)
        requestHeaders = headers.headers
        headers.endStream = false
        context.fireChannelRead(wrapInboundOut(.headers(headers)))
      }
      // Request trailers carry nothing the gRPC handler reads: only that the request ended.
      handleRequestEnd(
        context: context, passing: wrapInboundOut(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))))
    case .headers(var headers):
      if requestStarted {
        context.fireChannelRead(data)
      } else {
        requestStarted = true
        takeDeadline(from: &headers.headers, context: context)
        requestHeaders = headers.headers
        context.fireChannelRead(wrapInboundOut(.headers(headers)))
      }
    case .data(let frame):
      if case .byteBuffer(let bytes) = frame.data { framing.consume(bytes) }
      if let length = framing.oversizedMessage, let limit = framing.messageLimit {
        answerOversized(length: length, limit: limit, context: context)
      } else if frame.endStream {
        handleRequestEnd(context: context, passing: data)
      } else {
        context.fireChannelRead(data)
      }
    default:
      context.fireChannelRead(data)
    }
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    let payload = unwrapOutboundIn(data)
    if case .answered = response {
      promise?.fail(ChannelError.ioOnClosedChannel)
      return
    }
    switch payload {
    case .headers(let headers) where headers.endStream: responseEnded()
    case .headers: response = .headersSent
    case .data(let frame) where frame.endStream: responseEnded()
    default: break
    }
    context.write(data, promise: promise)
  }

  func channelInactive(context: ChannelHandlerContext) {
    cancelDeadline()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    cancelDeadline()
  }

  private func responseEnded() {
    response = .ended
    cancelDeadline()
  }

  private func cancelDeadline() {
    deadline?.cancel()
    deadline = nil
  }

  /// When this handler enforces deadlines and the request has a valid `grpc-timeout`: takes it off
  /// `headers` and starts the timer. An invalid one is left for the gRPC handler to judge.
  private func takeDeadline(from headers: inout HPACKHeaders, context: ChannelHandlerContext) {
    guard enforcesDeadline, let text = headers.first(name: "grpc-timeout"), let timeout = GRPCTimeout.parse(text)
    else { return }
    headers.remove(name: "grpc-timeout")
    // Eight digits of hours overflow a TimeAmount: anything past a century is as good as none.
    let amount = timeout < .seconds(3_153_600_000) ? TimeAmount(timeout) : .hours(876_000)
    deadline = context.eventLoop.assumeIsolated().scheduleTask(in: amount) { [self] in
      deadlinePassed(text, context: context)
    }
  }

  /// The call ran past its deadline: DEADLINE_EXCEEDED, and a client still sending is told to stop
  /// (RST_STREAM CANCEL); either way the stream closes, which cancels the call.
  private func deadlinePassed(_ timeout: String, context: ChannelHandlerContext) {
    deadline = nil
    let message = "\(method): the call ran past its deadline (grpc-timeout \(timeout))"
    guard answer(status: 4, message: message, context: context), !requestEnded else { return }
    context.writeAndFlush(wrapOutboundOut(.rstStream(.cancel)), promise: nil)
  }

  /// The request ended with `end` (a DATA frame with END_STREAM): passes it on, unless the last
  /// message was cut short and the call is still open, in which case the status says so.
  private func handleRequestEnd(context: ChannelHandlerContext, passing end: NIOAny) {
    requestEnded = true
    guard let incomplete = framing.incompleteMessage, answer(incomplete, context: context) else {
      context.fireChannelRead(end)
      return
    }
  }

  /// Writes the status for `incomplete`; false when the server already ended the call (nothing to say).
  private func answer(_ incomplete: IncompleteRequestMessage, context: ChannelHandlerContext) -> Bool {
    answer(status: 13, message: incomplete.statusMessage, context: context)
  }

  /// Answers RESOURCE_EXHAUSTED for a message of `length` bytes over `limit`, and resets the stream
  /// with NO_ERROR, so that the client stops sending what nobody reads. When the server already
  /// ended the call, the request's rest is dropped all the same.
  private func answerOversized(length: Int, limit: Int, context: ChannelHandlerContext) {
    let message =
      "\(method): the request message is \(length) bytes; this service accepts at most \(limit) (--max-message-bytes)"
    if !answer(status: 8, message: message, context: context) { response = .answered }
    context.writeAndFlush(wrapOutboundOut(.rstStream(.noError)), promise: nil)
  }

  /// The request's method, "package.Service/Method", from its `:path`: printable ASCII only, and no
  /// '%', since it goes into grpc-message as it is.
  private var method: String {
    let path = requestHeaders?.first(name: ":path") ?? ""
    return String(
      String.UnicodeScalarView(
        path.unicodeScalars.drop { $0 == "/" }.map { $0.value >= 0x20 && $0.value < 0x7F && $0 != "%" ? $0 : "?" }))
  }

  /// Writes trailers with `status` and `message` (plain ASCII); false when the server already ended
  /// the call (nothing to say).
  private func answer(status: Int, message: String, context: ChannelHandlerContext) -> Bool {
    var headers: HPACKHeaders
    switch response {
    case .ended, .answered:
      return false
    case .notStarted:
      headers = [":status": "200", "content-type": "application/grpc"]
    case .headersSent:
      headers = [:]
    }
    headers.add(name: "grpc-status", value: String(status))
    headers.add(name: "grpc-message", value: message)
    response = .answered
    cancelDeadline()
    context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
    return true
  }
}
