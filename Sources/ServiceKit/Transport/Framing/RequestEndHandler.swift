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
/// Sits first in each HTTP/2 stream's pipeline, before the transport's gRPC handler: it counts the
/// request's framing (`RequestFraming`), watches whether the response has started, and on a cut-short
/// request writes the status itself (trailers-only, or trailers after the response's headers), holds
/// the END_STREAM back from the gRPC handler and drops what that handler writes afterwards; the stream
/// then closes, which cancels the call.
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
    /// This handler answered a cut-short request; the gRPC handler's writes are dropped.
    case answeredIncomplete
  }

  private var framing = RequestFraming()
  private var response = Response.notStarted
  /// Whether the request's HEADERS went on to the gRPC handler.
  private var requestStarted = false

  init() {}

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if case .answeredIncomplete = response { return }
    switch unwrapInboundIn(data) {
    case .headers(var headers) where headers.endStream:
      if !requestStarted {
        requestStarted = true
        headers.endStream = false
        context.fireChannelRead(wrapInboundOut(.headers(headers)))
      }
      // Request trailers carry nothing the gRPC handler reads: only that the request ended.
      requestEnded(
        context: context, passing: wrapInboundOut(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true))))
    case .headers:
      requestStarted = true
      context.fireChannelRead(data)
    case .data(let frame):
      if case .byteBuffer(let bytes) = frame.data { framing.consume(bytes) }
      if frame.endStream {
        requestEnded(context: context, passing: data)
      } else {
        context.fireChannelRead(data)
      }
    default:
      context.fireChannelRead(data)
    }
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    let payload = unwrapOutboundIn(data)
    if case .answeredIncomplete = response {
      promise?.fail(ChannelError.ioOnClosedChannel)
      return
    }
    switch payload {
    case .headers(let headers): response = headers.endStream ? .ended : .headersSent
    case .data(let frame) where frame.endStream: response = .ended
    default: break
    }
    context.write(data, promise: promise)
  }

  /// The request ended with `end` (a DATA frame with END_STREAM): passes it on, unless the last
  /// message was cut short and the call is still open, in which case the status says so.
  private func requestEnded(context: ChannelHandlerContext, passing end: NIOAny) {
    guard let incomplete = framing.incompleteMessage, answer(incomplete, context: context) else {
      context.fireChannelRead(end)
      return
    }
  }

  /// Writes the status for `incomplete`; false when the server already ended the call (nothing to say).
  private func answer(_ incomplete: IncompleteRequestMessage, context: ChannelHandlerContext) -> Bool {
    var headers: HPACKHeaders
    switch response {
    case .ended, .answeredIncomplete:
      return false
    case .notStarted:
      headers = [":status": "200", "content-type": "application/grpc"]
    case .headersSent:
      headers = [:]
    }
    headers.add(name: "grpc-status", value: "13")
    headers.add(name: "grpc-message", value: incomplete.statusMessage)
    response = .answeredIncomplete
    context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
    return true
  }
}
