internal import NIOCore
internal import NIOHTTP1

/// The first handler of a public-port connection (after TLS, if any): it reads until it can tell
/// HTTP/2 with prior knowledge (the client preface) from HTTP/1.1 — browsers and curl without
/// `--http2` speak the latter — then puts the relay, or the HTTP/1.1 web pipeline, in its place
/// and hands it the bytes read so far. A peer that has said neither within `timeout` is closed.
final class PublicPortSniffer: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer

  static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

  /// What the first bytes say.
  enum Verdict: Equatable {
    case http2
    case http1
    case undecided
  }

  /// HTTP/2 when the bytes begin with the whole client preface, undecided while they are a
  /// shorter prefix of it, HTTP/1.1 otherwise.
  static func verdict(_ bytes: some Collection<UInt8>) -> Verdict {
    let prefix = Array(bytes.prefix(preface.count))
    guard prefix == Array(preface.prefix(prefix.count)) else { return .http1 }
    return prefix.count == preface.count ? .http2 : .undecided
  }

  private let makeRelay: (ChannelHandlerContext) throws -> Void
  private let makeHTTP1: (ChannelHandlerContext) throws -> Void
  private let timeout: TimeAmount
  private var buffered: ByteBuffer?
  private var timer: Scheduled<Void>?

  /// - Parameters:
  ///   - makeRelay: adds the HTTP/2 relay after this handler.
  ///   - makeHTTP1: adds the HTTP/1.1 handlers after this handler.
  init(
    timeout: Duration, makeRelay: @escaping (ChannelHandlerContext) throws -> Void,
    makeHTTP1: @escaping (ChannelHandlerContext) throws -> Void
  ) {
    self.timeout = .nanoseconds(Int64(timeout / .nanoseconds(1)))
    self.makeRelay = makeRelay
    self.makeHTTP1 = makeHTTP1
  }

  func handlerAdded(context: ChannelHandlerContext) {
    let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
    timer = context.eventLoop.scheduleTask(in: timeout) { loopContext.value.close(promise: nil) }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    timer?.cancel()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    var incoming = unwrapInboundIn(data)
    if buffered == nil {
      buffered = incoming
    } else {
      buffered!.writeBuffer(&incoming)
    }
    guard let bytes = buffered else { return }
    let verdict = Self.verdict(bytes.readableBytesView)
    guard verdict != .undecided else { return }
    do {
      try (verdict == .http2 ? makeRelay : makeHTTP1)(context)
    } catch {
      context.close(promise: nil)
      return
    }
    buffered = nil
    context.fireChannelRead(wrapInboundOut(bytes))
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }
}
