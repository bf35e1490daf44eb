internal import NIOCore
internal import NIOHTTP2
internal import NIOPosix

/// The upstream HTTP/2 connections of one event loop, by endpoint: a relayed call opens its stream
/// on a connection owned by the loop its client's connection runs on, so the call never changes
/// thread. A connection takes new streams while it has room under the peer's
/// SETTINGS_MAX_CONCURRENT_STREAMS; another is opened when all are full; GOAWAY or loss retires it.
/// Used only on its event loop.
final class UpstreamPool {
  let eventLoop: any EventLoop
  private var connections: [DomainEndpoint: [UpstreamConnection]] = [:]

  init(eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  /// Opens a stream to `endpoint`, set up by `initializer`.
  func openStream(
    to endpoint: DomainEndpoint, _ initializer: @escaping NIOChannelInitializer
  ) -> EventLoopFuture<any Channel> {
    eventLoop.preconditionInEventLoop()
    let connection = available(for: endpoint) ?? connect(to: endpoint)
    return connection.openStream(initializer)
  }

  /// How many connections are open to `endpoint` (for tests and logs).
  func connectionCount(to endpoint: DomainEndpoint) -> Int {
    connections[endpoint]?.count ?? 0
  }

  private func available(for endpoint: DomainEndpoint) -> UpstreamConnection? {
    connections[endpoint]?.first { $0.hasRoom }
  }

  private func connect(to endpoint: DomainEndpoint) -> UpstreamConnection {
    let connection = UpstreamConnection(endpoint: endpoint, eventLoop: eventLoop)
    connections[endpoint, default: []].append(connection)
    connection.start { [weak self] retired in
      self?.connections[endpoint]?.removeAll { $0 === retired }
    }
    return connection
  }
}

/// One HTTP/2 connection to an upstream, with its stream bookkeeping.
final class UpstreamConnection {
  let endpoint: DomainEndpoint
  let eventLoop: any EventLoop
  private var multiplexer: NIOHTTP2Handler.StreamMultiplexer?
  private var channel: (any Channel)?
  private var waiting: [(NIOChannelInitializer, EventLoopPromise<any Channel>)] = []
  private var failure: (any Error)?
  /// Streams open or being opened.
  private(set) var streams = 0
  /// The peer's limit; NIOHTTP2's default until its SETTINGS say otherwise.
  var maxStreams = 100
  /// GOAWAY received or connection lost: no new streams.
  private(set) var retired = false
  private var onRetire: ((UpstreamConnection) -> Void)?

  init(endpoint: DomainEndpoint, eventLoop: any EventLoop) {
    self.endpoint = endpoint
    self.eventLoop = eventLoop
  }

  var hasRoom: Bool { !retired && streams < maxStreams }

  func start(onRetire: @escaping (UpstreamConnection) -> Void) {
    self.onRetire = onRetire
    let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
    ClientBootstrap(group: eventLoop)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .connectTimeout(.seconds(2))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          let sync = channel.pipeline.syncOperations
          let multiplexer = try sync.configureHTTP2Pipeline(
            mode: .client, connectionConfiguration: RelaySettings.connection(mode: .client),
            streamConfiguration: RelaySettings.stream()
          ) { stream in stream.close() }  // the upstream never opens streams of its own
          try sync.addHandler(UpstreamConnectionWatcher(connection: loopBound.value))
          loopBound.value.multiplexer = multiplexer
        }
      }
      .connect(host: endpoint.host, port: endpoint.port)
      .whenComplete { result in
        let connection = loopBound.value
        switch result {
        case .success(let channel):
          connection.channel = channel
          let waiting = connection.waiting
          connection.waiting = []
          for (initializer, promise) in waiting { connection.create(initializer, promise) }
        case .failure(let error):
          connection.failure = error
          connection.retire()
          let waiting = connection.waiting
          connection.waiting = []
          for (_, promise) in waiting { promise.fail(error) }
        }
      }
  }

  func openStream(_ initializer: @escaping NIOChannelInitializer) -> EventLoopFuture<any Channel> {
    let promise = eventLoop.makePromise(of: (any Channel).self)
    if let failure {
      promise.fail(failure)
    } else if channel == nil {
      streams += 1
      waiting.append((initializer, promise))
    } else {
      streams += 1
      create(initializer, promise)
    }
    return promise.futureResult
  }

  private func create(_ initializer: @escaping NIOChannelInitializer, _ promise: EventLoopPromise<any Channel>) {
    guard let multiplexer, !retiredByLoss else {
      streams -= 1
      promise.fail(ChannelError.ioOnClosedChannel)
      return
    }
    let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
    multiplexer.createStreamChannel(initializer).whenComplete { result in
      switch result {
      case .success(let stream):
        stream.closeFuture.whenComplete { _ in loopBound.value.streams -= 1 }
        promise.succeed(stream)
      case .failure(let error):
        loopBound.value.streams -= 1
        promise.fail(error)
      }
    }
  }

  private var retiredByLoss = false

  /// The peer said GOAWAY: streams already open finish; new ones go elsewhere.
  func goAway() { retire() }

  /// The connection is gone.
  func lost() {
    retiredByLoss = true
    retire()
  }

  private func retire() {
    guard !retired else { return }
    retired = true
    onRetire?(self)
    onRetire = nil
  }
}

/// Watches an upstream connection's root stream: the peer's SETTINGS (its stream limit), GOAWAY,
/// and the connection's end.
final class UpstreamConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = HTTP2Frame
  private var connection: UpstreamConnection?

  init(connection: UpstreamConnection) {
    self.connection = connection
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let frame = unwrapInboundIn(data)
    switch frame.payload {
    case .settings(.settings(let settings)):
      for setting in settings where setting.parameter == .maxConcurrentStreams {
        connection?.maxStreams = setting.value
      }
    case .goAway:
      connection?.goAway()
    default:
      break
    }
  }

  func channelInactive(context: ChannelHandlerContext) {
    connection?.lost()
    connection = nil
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    context.close(promise: nil)
  }
}
