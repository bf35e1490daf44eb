internal import Logging
internal import Synchronization
internal import NIOCore
internal import NIOExtras
internal import NIOHTTP1
internal import NIOPosix
internal import NIOSSL
internal import Prometheus
internal import ServiceKit
internal import ServiceLifecycle

/// The gateway's public port: an HTTP/2 server (`RelayConnection`) whose every stream is relayed
/// (`RelayedCall`) to a domain or to the gateway's own gRPC server in this process. Stops on graceful shutdown by
/// refusing new connections, sending GOAWAY and letting calls in flight finish.
final class RelayServer: Service, Sendable {
  private let host: String
  private let port: Int
  private let group: any EventLoopGroup
  private let router: @Sendable () async throws -> RelayRouter
  private let metrics: RelayMetrics
  private let limits: RelayLimits
  private let logger: Logger
  private let bound: EventLoopPromise<SocketAddress>
  private let gate: RelayConnectionGate
  /// TLS on the public port (ALPN h2); nil: h2c.
  private let tls: NIOSSLContext?

  /// - Parameter router: awaited before listening (it needs the gateway server's address).
  init(
    host: String, port: Int, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
    metrics: RelayMetrics, limits: RelayLimits = .defaults, tls: NIOSSLContext? = nil, logger: Logger,
    router: @escaping @Sendable () async throws -> RelayRouter
  ) {
    self.tls = tls
    self.host = host
    self.port = port
    self.group = group
    self.router = router
    self.metrics = metrics
    self.limits = limits
    self.logger = logger
    self.bound = group.any().makePromise()
    self.gate = RelayConnectionGate(limit: limits.maxConnections)
  }

  deinit { bound.fail(CancellationError()) }

  /// The address the relay listens on, once it does.
  var listeningAddress: SocketAddress {
    get async throws { try await bound.futureResult.get() }
  }

  /// The port the relay listens on, once it does.
  var listeningPort: Int {
    get async throws { try await listeningAddress.port ?? port }
  }

  func run() async throws {
    let router: RelayRouter
    let channel: any Channel
    let quiesce: ServerQuiescingHelper
    do {
      router = try await self.router()
      let states = RelayLoopStates(group: group, router: router, metrics: metrics, limits: limits, logger: logger)
      quiesce = ServerQuiescingHelper(group: group)
      let gate = self.gate
      let tls = self.tls
      let limits = self.limits
      let refusals = RefusedConnections(metrics: metrics, logger: logger)
      let watermark = ChannelOptions.Types.WriteBufferWaterMark(
        low: limits.maxQueuedOutputBytes / 2, high: limits.maxQueuedOutputBytes)
      channel = try await ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 1024)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .serverChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(quiesce.makeServerChannelHandler(channel: channel))
          }
        }
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelOption(.writeBufferWaterMark, value: watermark)
        .childChannelInitializer { connection in
          guard gate.admit() else {
            refusals.refused(limit: gate.limit)
            return connection.eventLoop.makeCompletedFuture {
              try connection.pipeline.syncOperations.addHandler(CloseOnArrival())
            }
          }
          connection.closeFuture.whenComplete { _ in gate.release() }
          return connection.eventLoop.makeCompletedFuture {
            let pipeline = connection.pipeline.syncOperations
            if let tls { try pipeline.addHandler(NIOSSLServerHandler(context: tls)) }
            let state = states.state(for: connection.eventLoop)
            guard let web = router.web else {
              return try pipeline.addHandler(RelayConnection(role: .server, state: state))
            }
            // HTTP/2 goes to the relay; HTTP/1.1 (browsers, curl) to the web side directly.
            try pipeline.addHandler(
              PublicPortSniffer(
                timeout: limits.handshakeTimeout,
                makeRelay: { context in
                  try context.pipeline.syncOperations.addHandler(RelayConnection(role: .server, state: state))
                },
                makeHTTP1: { context in
                  let pipeline = context.pipeline.syncOperations
                  let deadlines = HTTP1Deadlines(
                    requestTimeout: limits.handshakeTimeout, idleTimeout: limits.idleTimeout,
                    stalledWriteTimeout: limits.stalledWriteTimeout)
                  try pipeline.addHandler(deadlines)
                  try pipeline.configureHTTPServerPipeline(position: .last, withPipeliningAssistance: true)
                  try pipeline.addHandler(
                    RelayHTTP1Connection(
                      state: state, deadlines: deadlines, requestTimeout: web.requestTimeout, tls: tls != nil))
                }))
          }
        }
        .bind(host: host, port: port).get()
    } catch {
      bound.fail(error)
      throw error
    }
    if let address = channel.localAddress { bound.succeed(address) }
    logger.debug("relay listening", metadata: ["address": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
    let drained = channel.eventLoop.makePromise(of: Void.self)
    let draining = ShutdownFlag()
    await withTaskCancellationOrGracefulShutdownHandler {
      try? await channel.closeFuture.get()
      if draining.value.load(ordering: .acquiring) {
        try? await drained.futureResult.get()
      } else {
        drained.succeed(())
      }
    } onCancelOrGracefulShutdown: {
      // Stop accepting, GOAWAY every connection; each closes once its streams are done.
      draining.value.store(true, ordering: .releasing)
      quiesce.initiateShutdown(promise: drained)
    }
  }
}

/// One `RelayLoopState` per event loop of the group, made up front; each is touched only on its
/// own loop (checked on access).
///
/// @unchecked Sendable: the dictionary is built in `init` and never mutated; its values are not
/// Sendable, but `state(for:)` hands a loop's state out only on that loop (a precondition), so no
/// state is ever used from two threads.
final class RelayLoopStates: @unchecked Sendable {
  private let states: [ObjectIdentifier: RelayLoopState]

  init(group: any EventLoopGroup, router: RelayRouter, metrics: RelayMetrics, limits: RelayLimits, logger: Logger) {
    var states: [ObjectIdentifier: RelayLoopState] = [:]
    let loops = Array(group.makeIterator())
    for loop in loops {
      states[ObjectIdentifier(loop)] = RelayLoopState(
        eventLoop: loop, router: router, metrics: metrics, limits: limits, loops: loops.count, logger: logger)
    }
    self.states = states
  }

  /// The state of `loop`; call on `loop`.
  func state(for loop: any EventLoop) -> RelayLoopState {
    loop.preconditionInEventLoop()
    return states[ObjectIdentifier(loop)]!
  }
}

/// Whether graceful shutdown has begun.
final class ShutdownFlag: Sendable {
  let value = Atomic<Bool>(false)
}

/// Connections refused past `RelayLimits.maxConnections`: counted, and logged at most once a second.
final class RefusedConnections: Sendable {
  private let counter: Counter?
  private let logger: Logger
  private let lastLogged = Mutex<(at: ContinuousClock.Instant?, since: Int)>((nil, 0))

  init(metrics: RelayMetrics, logger: Logger) {
    counter = metrics.metrics?.registry.makeCounter(
      name: RelayEventLog.metricName, labels: [("event", "connection_refused"), ("code", "LIMIT")],
      help: RelayEventLog.help)
    self.logger = logger
  }

  func refused(limit: Int) {
    counter?.increment()
    let now = ContinuousClock.now
    let more: Int? = lastLogged.withLock { last in
      if let at = last.at, now - at < .seconds(1) {
        last.since += 1
        return nil
      }
      defer { last = (now, 0) }
      return last.since
    }
    if let more {
      logger.notice(
        "relay connection refused: LIMIT",
        metadata: ["detail": "\(limit) connections open", "more_since_last_line": "\(more)"])
    }
  }
}

/// Closes a connection the moment it is up, before reading a byte: one past the connection limit.
final class CloseOnArrival: ChannelInboundHandler, Sendable {
  typealias InboundIn = ByteBuffer

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { context.close(promise: nil) }
  }

  func channelActive(context: ChannelHandlerContext) {
    context.close(promise: nil)
  }
}
