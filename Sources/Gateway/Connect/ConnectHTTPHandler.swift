internal import GRPCCore
internal import NIOCore
internal import NIOHTTP1

/// Reads web requests (HTTP/1.1, or one HTTP/2 stream through NIO's HTTP/1 codec) whole, body
/// bounded by `ConnectResponder.maxBodyBytes`, and has `ConnectResponder` answer each in a task
/// of its own; the task is cancelled if the peer goes away. One request at a time: NIO's HTTP/1
/// pipelining handler holds the next until this one's answer has ended.
final class ConnectHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  private enum State {
    case idle
    case receiving(HTTPRequestHead, [UInt8])
    /// The body was too large: the rest of the request is dropped, the answer sent.
    case refused
    case answering(Task<Void, Never>)
  }

  private let responder: ConnectResponder
  /// The HTTP/1.1 connection's deadlines; nil on an HTTP/2 stream (the relay keeps the time there).
  private let deadline: HTTP1Deadlines?
  private var state = State.idle

  init(responder: ConnectResponder, deadline: HTTP1Deadlines? = nil) {
    self.responder = responder
    self.deadline = deadline
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch (unwrapInboundIn(data), state) {
    case (.head(let head), .idle):
      state = .receiving(head, [])
    case (.body(var buffer), .receiving(let head, var body)):
      guard body.count + buffer.readableBytes <= responder.maxBodyBytes else {
        state = .refused
        return tooLarge(context: context, head: head)
      }
      state = .idle  // let the array be uniquely referenced while it grows
      body += buffer.readBytes(length: buffer.readableBytes) ?? []
      state = .receiving(head, body)
    case (.end, .receiving(let head, let body)):
      deadline?.requestReceived()
      answer(head, body, context: context)
    case (.end, .refused):
      deadline?.requestReceived()
    default:
      break  // the rest of a refused request
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    if case .answering(let task) = state { task.cancel() }
    context.fireChannelInactive()
  }

  private func answer(_ head: HTTPRequestHead, _ body: [UInt8], context: ChannelHandlerContext) {
    let request = WebRequest(
      method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: body)
    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
    let ended = NIOLoopBound(
      { [self] in
        self.state = .idle
        self.deadline?.responseSent()
      }, eventLoop: context.eventLoop)
    let writer = ChannelResponseWriter(context: loopContext, version: head.version, ended: ended)
    let responder = self.responder
    state = .answering(
      Task {
        do {
          try await responder.respond(request, writer: writer)
        } catch {
          // The peer went away or the answer could not be written: end the connection or stream.
          loopContext.eventLoop.execute { loopContext.value.close(promise: nil) }
        }
      })
  }

  /// A body over the limit: answered at once with RESOURCE_EXHAUSTED in the request's protocol,
  /// and the connection (HTTP/1.1) or stream closed after it, since the rest of the body would
  /// still be coming.
  private func tooLarge(context: ChannelHandlerContext, head: HTTPRequestHead) {
    let failure = ConnectFailure(
      code: .resourceExhausted,
      message: "the request body is larger than this gateway takes (--max-message-bytes \(responder.maxBodyBytes - 5))")
    let kind = head.headers.first(name: "content-type").flatMap(ConnectRequestKind.init(contentType:))
    let (status, contentType, body) = failure.answer(kind: kind, codec: nil)
    var headers = HTTPHeaders([("content-type", contentType), ("content-length", "\(body.count)")])
    headers.add(contentsOf: responder.cors.responseHeaders(origin: head.headers.first(name: "origin")))
    if head.version.major == 1 { headers.add(name: "connection", value: "close") }
    context.write(
      wrapOutboundOut(
        .head(HTTPResponseHead(version: head.version, status: HTTPResponseStatus(statusCode: status), headers: headers))
      ),
      promise: nil)
    context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopContext.value.close(promise: nil) }
  }
}
