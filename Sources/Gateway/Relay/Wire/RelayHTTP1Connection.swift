internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP1

/// One HTTP/1.1 connection of the public port (browsers on `http://`, curl without
/// `--http2-prior-knowledge`), whose every request is a web call or a page: each becomes a
/// `RelayedCall` as an HTTP/2 stream's request would — a Connect or gRPC-Web call carried as gRPC
/// on the relay's own upstream streams, a page, a preflight, a development token or a refusal
/// answered by the relay — on the connection's event loop, with no task and no gRPC client between.
/// One request at a time: NIO's pipelining handler holds the next until this one's answer has
/// ended. The answer's DATA is reported sent once the socket takes it (a reader that stops reading
/// stops the upstream too), and an answer that ends before its request does closes the connection
/// (`connection: close`). Deadlines are `HTTP1Deadlines`'s, and a request must arrive whole within
/// `requestTimeout`. Used only on its event loop.
final class RelayHTTP1Connection: ChannelInboundHandler, RelayCallClient {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart

  /// The request being answered.
  private struct Exchange {
    let head: HTTPRequestHead
    let stream: RelayStream
    let call: RelayedCall
    var requestEnded = false
    var responseStarted = false
  }

  private let state: RelayLoopState
  private let deadlines: HTTP1Deadlines
  private let requestTimeout: TimeAmount
  private let scheme: String
  private var context: ChannelHandlerContext?
  private var exchange: Exchange?
  private var requestTimer: Scheduled<Void>?
  /// DATA bytes written while the socket did not drain: reported sent once it does.
  private var unreported = 0
  /// The large first messages of this client's calls the gateway's server holds.
  lazy var largeRequests = LargeRequestBudget(limit: state.limits.maxLargeRequestBytesPerConnection)

  init(state: RelayLoopState, deadlines: HTTP1Deadlines, requestTimeout: Duration, tls: Bool) {
    self.state = state
    self.deadlines = deadlines
    self.requestTimeout = TimeAmount(requestTimeout)
    self.scheme = tls ? "https" : "http"
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    self.context = nil
  }

  // MARK: The request

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      begin(head, context: context)
    case .body(let body):
      guard let exchange, !exchange.requestEnded else { return }
      exchange.call.receivedFromClient(.data(body, endStream: false))
    case .end:
      guard var exchange, !exchange.requestEnded else { return }
      exchange.requestEnded = true
      self.exchange = exchange
      requestTimer?.cancel()
      requestTimer = nil
      deadlines.requestReceived()
      exchange.call.receivedFromClient(.data(ByteBuffer(), endStream: true))
    }
  }

  private func begin(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
    var headers = HPACKHeaders()
    headers.add(name: ":method", value: head.method.rawValue)
    headers.add(name: ":scheme", value: scheme)
    headers.add(name: ":path", value: head.uri)
    if let host = head.headers.first(name: "host") { headers.add(name: ":authority", value: host) }
    for (name, value) in head.headers {
      let name = name.lowercased()
      guard !Self.connectionSpecific.contains(name) else { continue }
      headers.add(name: name, value: value, indexing: .nonIndexable)
    }
    let stream = RelayStream(
      id: 1, call: nil, state: .openedByPeer, sendWindow: FlowControlWindow.maximum,
      receiveWindow: FlowControlWindow.maximum, openedAt: state.timers.now)
    let call = RelayedCall(
      client: self, stream: stream, state: state, headers: headers, endStream: false, overHTTP1: true)
    stream.call = call
    exchange = Exchange(head: head, stream: stream, call: call)
    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
    requestTimer = context.eventLoop.scheduleTask(in: requestTimeout) { loopContext.value.close(promise: nil) }
    call.start()
  }

  /// Headers of the HTTP/1.1 connection itself, not of the request.
  static let connectionSpecific: Set<String> = [
    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "host",
  ]

  func channelInactive(context: ChannelHandlerContext) {
    requestTimer?.cancel()
    requestTimer = nil
    if let exchange {
      self.exchange = nil
      exchange.call.clientWentAway()
    }
    context.fireChannelInactive()
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { reportSent() }
    context.fireChannelWritabilityChanged()
  }

  // MARK: The answer

  func send(_ item: RelayStream.Outgoing, on stream: RelayStream) {
    guard var exchange, exchange.stream === stream, let context else { return }
    switch item {
    case .headers(let headers, let end):
      if !exchange.responseStarted {
        exchange.responseStarted = true
        self.exchange = exchange
        context.write(wrapOutboundOut(.head(head(of: headers, for: exchange))), promise: nil)
      }
      // HEADERS after the answer's first are trailers: an HTTP/1.1 answer ends without them.
      if end { finish(exchange, context: context) } else { context.flush() }
    case .data(let data, let end):
      guard exchange.responseStarted else { return }
      let bytes = data.readableBytes
      if bytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(data))), promise: nil) }
      unreported += bytes
      if end {
        finish(exchange, context: context)
      } else {
        context.flush()
        if context.channel.isWritable { reportSent() }
      }
    }
  }

  /// The client's HTTP/2 window has no HTTP/1.1 counterpart: what it sends is read as it comes.
  func credit(_ stream: RelayStream, _ bytes: Int) {}

  private func head(of headers: HPACKHeaders, for exchange: Exchange) -> HTTPResponseHead {
    var fields = HTTPHeaders()
    for (name, value, _) in headers where !name.hasPrefix(":") { fields.add(name: name, value: value) }
    // An answer that ends before its request does: the rest of the body cannot be skipped.
    if !exchange.requestEnded { fields.replaceOrAdd(name: "connection", value: "close") }
    let status = headers.first(name: ":status").flatMap { Int($0) } ?? 500
    return HTTPResponseHead(
      version: exchange.head.version, status: HTTPResponseStatus(statusCode: status), headers: fields)
  }

  private func finish(_ exchange: Exchange, context: ChannelHandlerContext) {
    self.exchange = nil
    requestTimer?.cancel()
    requestTimer = nil
    let close = !exchange.requestEnded || !exchange.head.isKeepAlive
    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
      if close { loopContext.value.close(promise: nil) }
    }
    reportSent(for: exchange)
    deadlines.responseSent()
  }

  private func reportSent(for exchange: Exchange? = nil) {
    guard let exchange = exchange ?? self.exchange, unreported > 0 else { return }
    let bytes = unreported
    unreported = 0
    exchange.call.sent(bytes, on: exchange.stream)
  }
}
