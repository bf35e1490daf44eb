internal import NIOCore

/// The time an HTTP/1.1 peer of the public port gets, kept below NIO's HTTP/1 decoder (it sees
/// bytes): from a request's first byte, `requestTimeout` for its head and body to arrive
/// (slowloris); between requests, `idleTimeout` before the connection closes. While an answer is
/// being written (a stream of live updates, say) only a peer that stops reading is timed: the
/// connection unwritable for `stalledWriteTimeout`. Past any of them, the connection closes.
final class HTTP1Deadlines: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  enum Phase: Equatable {
    /// Between requests.
    case idle
    /// A request has begun to arrive.
    case receiving
    /// The request is in; its answer is being written.
    case answering
  }

  private let requestTimeout: TimeAmount
  private let idleTimeout: TimeAmount
  private let stalledWriteTimeout: TimeAmount
  private var stalledTimer: Scheduled<Void>?
  private(set) var phase = Phase.idle
  private var timer: Scheduled<Void>?
  private var context: ChannelHandlerContext?

  init(requestTimeout: Duration, idleTimeout: Duration, stalledWriteTimeout: Duration = .seconds(30)) {
    self.requestTimeout = .nanoseconds(Int64(requestTimeout / .nanoseconds(1)))
    self.idleTimeout = .nanoseconds(Int64(idleTimeout / .nanoseconds(1)))
    self.stalledWriteTimeout = .nanoseconds(Int64(stalledWriteTimeout / .nanoseconds(1)))
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    arm(idleTimeout)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
    stalledTimer?.cancel()
    self.context = nil
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    if phase == .idle {
      phase = .receiving
      arm(requestTimeout)
    }
    context.fireChannelRead(data)
  }

  /// A peer that reads nothing of what it is sent is given `stalledWriteTimeout`.
  func channelWritabilityChanged(context: ChannelHandlerContext) {
    stalledTimer?.cancel()
    stalledTimer = nil
    if !context.channel.isWritable {
      let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
      stalledTimer = context.eventLoop.scheduleTask(in: stalledWriteTimeout) { loopContext.value.close(promise: nil) }
    }
    context.fireChannelWritabilityChanged()
  }

  /// The request's last byte has been read.
  func requestReceived() {
    phase = .answering
    timer?.cancel()
    timer = nil
  }

  /// The answer has been written: the connection waits for the next request.
  func responseSent() {
    phase = .idle
    arm(idleTimeout)
  }

  private func arm(_ timeout: TimeAmount) {
    timer?.cancel()
    guard let context else { return }
    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
    timer = context.eventLoop.scheduleTask(in: timeout) { loopContext.value.close(promise: nil) }
  }
}
