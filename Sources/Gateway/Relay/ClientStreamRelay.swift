internal import ServiceKit
internal import NIOCore
internal import NIOHPACK
internal import NIOHTTP2

/// The client end of a relayed call, one per stream a client opens on the gateway. It holds the
/// request's frames until it knows where the call goes — at once for the gateway's own methods,
/// after the first message for a pass-through method (the intent class read by `IntentWireScan`)
/// — then opens a stream on a pooled upstream connection of this event loop and relays HEADERS,
/// DATA and trailers both ways, payload untouched. A client that resets its stream resets the
/// upstream one; an upstream that resets ends the client's stream with a gRPC status.
final class ClientStreamRelay: ChannelInboundHandler {
  typealias InboundIn = HTTP2Frame.FramePayload
  typealias OutboundOut = HTTP2Frame.FramePayload

  private let router: RelayRouter
  private let loop: RelayLoopState
  private let metrics: RelayMetrics
  private var context: ChannelHandlerContext?

  private enum Phase {
    /// Collecting the request until the route is known.
    case routing
    /// Waiting for the upstream stream to open.
    case opening
    /// Frames flow both ways.
    case relaying(any Channel)
    case closed
  }

  private var phase = Phase.routing
  /// The request's frames not yet sent upstream; kept after sending (for one retry through the
  /// gateway's server) until the upstream answers.
  private var held: [HTTP2Frame.FramePayload] = []
  private var keepForRetry = false
  private var retried = false
  private var requestEnded = false
  private var path = ""
  private var passThrough: (shape: IntentWireScan.Shape, streaming: Bool)?
  private var firstMessage: ByteBuffer?
  private var responseStarted = false
  private var responseEnded = false
  private var call: RelayMetrics.Call?

  init(router: RelayRouter, loop: RelayLoopState, metrics: RelayMetrics) {
    self.router = router
    self.loop = loop
    self.metrics = metrics
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    self.context = nil
  }

  // MARK: From the client

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame {
    case .headers(let headers):
      if headers.endStream { requestEnded = true }
    case .data(let data):
      if data.endStream { requestEnded = true }
    default:
      return
    }
    switch phase {
    case .relaying(let upstream):
      upstream.write(frame, promise: nil)
      loop.flusher.flushSoon(upstream)
    case .routing:
      held.append(frame)
      route(after: frame)
    case .opening:
      held.append(frame)
    case .closed:
      break
    }
  }

  /// Decides where the call goes as soon as the frames so far allow.
  private func route(after frame: HTTP2Frame.FramePayload) {
    switch frame {
    case .headers(let headers) where path.isEmpty:
      path = headers.headers.first(name: ":path") ?? ""
      passThrough = RelayRouter.passThrough[path]
      if passThrough == nil {
        open(to: router.gatewayServer, domain: false)
      } else if requestEnded {
        open(to: router.gatewayServer, domain: false)
      }
    case .data(let data):
      guard case .byteBuffer(var bytes) = data.data, let shape = passThrough?.shape else { return }
      if firstMessage == nil {
        firstMessage = bytes
      } else {
        firstMessage!.writeBuffer(&bytes)
      }
      decideFromFirstMessage(shape: shape)
    default:
      if requestEnded { open(to: router.gatewayServer, domain: false) }
    }
  }

  private func decideFromFirstMessage(shape: IntentWireScan.Shape) {
    guard let buffer = firstMessage, buffer.readableBytes >= 5,
      let compressed = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
      let length = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt32.self)
    else {
      if requestEnded { open(to: router.gatewayServer, domain: false) }
      return
    }
    // Compressed or oversized messages are the gateway server's to answer.
    guard compressed == 0, Int(length) <= router.maxRequestMessageBytes else {
      open(to: router.gatewayServer, domain: false)
      return
    }
    guard buffer.readableBytes >= 5 + Int(length) else {
      if requestEnded { open(to: router.gatewayServer, domain: false) }
      return
    }
    let message = buffer.getSlice(at: buffer.readerIndex + 5, length: Int(length))!
    if let found = IntentWireScan.scan(message, shape: shape), let domain = router.domain(for: found) {
      open(to: domain, domain: true)
    } else {
      open(to: router.gatewayServer, domain: false)
    }
  }

  private func open(to endpoint: DomainEndpoint, domain: Bool) {
    phase = .opening
    firstMessage = nil  // the held frames carry the bytes; the scan copy is no longer needed
    // The gateway's server counts the calls it answers; the relay counts those it takes to a domain.
    if domain { call = metrics.started(path: path) }
    if domain, case .headers(var first)? = held.first {
      first.headers = router.upstreamHeaders(first.headers, streaming: passThrough?.streaming ?? false).0
      held[0] = .headers(first)
    }
    // A unary pass-through request is short: keep it until the domain answers, so that a stream the
    // domain refuses (GOAWAY, lost connection) can still be placed through the gateway's server.
    keepForRetry = domain && requestEnded
    let selfBound = NIOLoopBound(self, eventLoop: loop.pool.eventLoop)
    loop.pool.openStream(to: endpoint) { stream in
      stream.eventLoop.makeCompletedFuture {
        try stream.pipeline.syncOperations.addHandler(UpstreamStreamRelay(client: selfBound.value))
      }
    }.whenComplete { result in
      let relay = selfBound.value
      switch result {
      case .success(let upstream): relay.opened(upstream)
      case .failure: relay.openFailed(domain: domain)
      }
    }
  }

  private func opened(_ upstream: any Channel) {
    guard case .opening = phase else {
      upstream.close(promise: nil)  // the client left meanwhile
      return
    }
    phase = .relaying(upstream)
    for frame in held { upstream.write(frame, promise: nil) }
    if !keepForRetry { held.removeAll() }
    loop.flusher.flushSoon(upstream)
  }

  private func openFailed(domain: Bool) {
    guard case .opening = phase else { return }
    if domain {
      retryThroughGatewayServer()
    } else {
      failCall(status: 14, message: "the gateway's server is not reachable")
    }
  }

  /// Sends the held request to the gateway's server, which places it again or says why not.
  private func retryThroughGatewayServer() {
    guard !retried else {
      failCall(status: 14, message: "the domain closed the stream before answering")
      return
    }
    retried = true
    keepForRetry = false
    metrics.abandoned(call)
    call = nil
    open(to: router.gatewayServer, domain: false)
  }

  // MARK: From the upstream

  /// Whether `channel` is the upstream this call relays to now (not one it left for a retry).
  private func isCurrent(_ channel: any Channel) -> Bool {
    guard case .relaying(let upstream) = phase else { return false }
    return upstream === channel
  }

  func fromUpstream(_ frame: HTTP2Frame.FramePayload, on channel: any Channel) {
    guard let context, isCurrent(channel) else { return }
    if !responseStarted {
      responseStarted = true
      held.removeAll()
      keepForRetry = false
    }
    if case .headers(let headers) = frame, headers.endStream {
      responseEnded = true
      metrics.finished(call, status: headers.headers.first(name: "grpc-status"))
      call = nil
    } else if case .data(let data) = frame, data.endStream {
      responseEnded = true
      metrics.finished(call, status: nil)
      call = nil
    }
    context.write(wrapOutboundOut(frame), promise: nil)
    loop.flusher.flushSoon(context.channel)
  }

  func upstreamWritabilityChanged(_ upstream: any Channel) {
    guard isCurrent(upstream) else { return }
    // Backpressure: stop reading the client (its window stays closed) while the upstream is full.
    if let channel = context?.channel { Self.setReading(channel, upstream.isWritable) }
  }

  /// Turns reading on or off; a stream channel does not read again by itself when turned on.
  private static func setReading(_ channel: any Channel, _ reading: Bool) {
    channel.setOption(ChannelOptions.autoRead, value: reading).whenSuccess {
      if reading { channel.read() }
    }
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if case .relaying(let upstream) = phase {
      Self.setReading(upstream, context.channel.isWritable)
    }
    context.fireChannelWritabilityChanged()
  }

  /// The upstream stream ended without trailers.
  func upstreamEndedEarly(_ upstream: any Channel) {
    guard isCurrent(upstream), !responseEnded else { return }
    if !responseStarted && keepForRetry && !retried {
      phase = .opening
      retryThroughGatewayServer()
    } else {
      failCall(status: 14, message: "the domain reset the stream")
    }
  }

  /// Ends the client's stream with a gRPC status: trailers-only if nothing was sent yet.
  private func failCall(status: Int, message: String) {
    guard let context, !responseEnded else { return }
    var headers = HPACKHeaders()
    if !responseStarted {
      headers.add(name: ":status", value: "200")
      headers.add(name: "content-type", value: "application/grpc")
    }
    headers.add(name: "grpc-status", value: "\(status)")
    headers.add(name: "grpc-message", value: message)
    responseEnded = true
    responseStarted = true
    metrics.finished(call, status: "\(status)")
    call = nil
    context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
  }

  // MARK: The client's stream ends

  func channelInactive(context: ChannelHandlerContext) {
    if case .relaying(let upstream) = phase {
      upstream.close(promise: nil)  // RST_STREAM(CANCEL) unless it already ended
    }
    if call != nil {
      metrics.finished(call, status: "1")  // the client cancelled
      call = nil
    }
    phase = .closed
    held.removeAll()
    firstMessage = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
