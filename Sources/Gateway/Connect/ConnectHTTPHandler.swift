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
    /// The body was too large, or the process holds too many: the rest of the request is dropped,
    /// the answer sent, the connection or stream closed.
    case refused
    case answering(Task<Void, Never>)
  }

  private let responder: ConnectResponder
  /// The HTTP/1.1 connection's deadlines; nil on an HTTP/2 stream.
  private let deadline: HTTP1Deadlines?
  /// How long a request may take from its head to its last byte; then its stream or connection closes.
  private let requestTimeout: TimeAmount
  private var state = State.idle
  private var requestTimer: Scheduled<Void>?
  /// Bytes of this request's body taken from the process's budget, not yet given back.
  private var held = 0

  init(responder: ConnectResponder, requestTimeout: Duration, deadline: HTTP1Deadlines? = nil) {
    self.responder = responder
    self.requestTimeout = .nanoseconds(Int64(requestTimeout / .nanoseconds(1)))
    self.deadline = deadline
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch (unwrapInboundIn(data), state) {
    case (.head(let head), .idle):
      state = .receiving(head, [])
      let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
      requestTimer = context.eventLoop.scheduleTask(in: requestTimeout) { loopContext.value.close(promise: nil) }
    case (.body(var buffer), .receiving(let head, var body)):
      let size = buffer.readableBytes
      guard body.count + size <= responder.maxBodyBytes else {
        return refuse(.tooLarge(responder.maxBodyBytes - 5), head: head, context: context)
      }
      guard responder.bodyBudget.take(size) else {
        return refuse(.busy, head: head, context: context)
      }
      held += size
      state = .idle  // let the array be uniquely referenced while it grows
      body += buffer.readBytes(length: size) ?? []
      state = .receiving(head, body)
    case (.end, .receiving(let head, let body)):
      requestTimer?.cancel()
      deadline?.requestReceived()
      answer(head, body, context: context)
    case (.end, .refused):
      deadline?.requestReceived()
    default:
      break  // the rest of a refused request
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    requestTimer?.cancel()
    switch state {
    case .answering(let task): task.cancel()
    case .receiving, .refused: releaseBody()
    case .idle: break
    }
    context.fireChannelInactive()
  }

  private func releaseBody() {
    responder.bodyBudget.give(held)
    held = 0
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
    let bytes = held
    held = 0
    state = .answering(
      Task {
        defer { responder.bodyBudget.give(bytes) }
        do {
          try await responder.respond(request, writer: writer)
        } catch {
          // The peer went away or the answer could not be written: end the connection or stream.
          loopContext.eventLoop.execute { loopContext.value.close(promise: nil) }
        }
      })
  }

  private enum Refusal {
    case tooLarge(Int)
    case busy

    var message: String {
      switch self {
      case .tooLarge(let limit):
        "the request body is larger than this gateway takes (--max-message-bytes \(limit))"
      case .busy: "the gateway holds too many request bodies now; try again"
      }
    }
  }

  /// A body over the limit, or over the process's budget: answered at once with RESOURCE_EXHAUSTED
  /// in the request's protocol, and the connection (HTTP/1.1) or stream closed after it, since the
  /// rest of the body would still be coming.
  private func refuse(_ refusal: Refusal, head: HTTPRequestHead, context: ChannelHandlerContext) {
    state = .refused
    requestTimer?.cancel()
    releaseBody()
    let failure = ConnectFailure(code: .resourceExhausted, message: refusal.message)
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
