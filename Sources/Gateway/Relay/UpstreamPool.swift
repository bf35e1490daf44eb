internal import NIOCore
internal import NIOPosix
internal import NIOSSL

/// The upstream HTTP/2 connections of one event loop, by endpoint: a relayed call opens its stream
/// on a connection owned by the loop its client's connection runs on, so the call never changes
/// thread. A connection takes new streams while it has room under the peer's
/// SETTINGS_MAX_CONCURRENT_STREAMS; another is opened when all are full; GOAWAY or loss retires it.
/// Used only on its event loop.
final class UpstreamPool {
  let eventLoop: any EventLoop
  /// The loop state this pool belongs to (set by it).
  weak var state: RelayLoopState?
  private var connections: [DomainEndpoint: [RelayConnection]] = [:]
  /// Upstreams that answered GOAWAY ENHANCE_YOUR_CALM, and how long new connections to them wait.
  private var backoffs: [DomainEndpoint: UpstreamBackoff] = [:]
  /// Attaches a new upstream connection to its transport instead of a TCP socket: set by tests and
  /// the fuzzer, which run the relay on embedded channels; nil (a socket to the endpoint) otherwise.
  var dial: ((RelayConnection, DomainEndpoint) -> Void)?

  init(eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  /// Opens a stream to `endpoint` for `call`. The connection may still be connecting: what the
  /// call sends waits in it, and a connection that fails resets the stream.
  func openStream(to endpoint: DomainEndpoint, for call: RelayedCall) -> (RelayConnection, RelayStream) {
    eventLoop.preconditionInEventLoop()
    if let connection = connections[endpoint]?.first(where: { $0.hasRoom }),
      let stream = connection.openStream(for: call)
    {
      return (connection, stream)
    }
    let connection = connect(to: endpoint)
    return (connection, connection.openStream(for: call)!)
  }

  /// `endpoint` told a connection to calm down: new connections to it wait a while.
  func calmDown(_ endpoint: DomainEndpoint) {
    let delay = backoffs[endpoint, default: UpstreamBackoff()].calmDown(now: eventLoop.now)
    state?.events.record(
      "upstream_backoff", code: "ENHANCE_YOUR_CALM",
      detail: "\(endpoint): new connections wait \(delay.nanoseconds / 1_000_000) ms")
  }

  private func connect(to endpoint: DomainEndpoint) -> RelayConnection {
    let connection = RelayConnection(role: .client, state: state!)
    connection.endpoint = endpoint
    connections[endpoint, default: []].append(connection)
    connection.onRetire = { [weak self] retired in
      self?.connections[endpoint]?.removeAll { $0 === retired }
    }
    let wait = backoffs[endpoint]?.wait(now: eventLoop.now) ?? .zero
    guard wait > .zero else {
      open(connection, to: endpoint)
      return connection
    }
    // Calls wait in the connection (it gathers their frames) until the upstream has had its calm.
    let bound = NIOLoopBound((pool: self, connection: connection), eventLoop: eventLoop)
    eventLoop.scheduleTask(in: wait) { bound.value.pool.open(bound.value.connection, to: endpoint) }
    return connection
  }

  private func open(_ connection: RelayConnection, to endpoint: DomainEndpoint) {
    guard !connection.machine.isClosed else { return }
    if let dial {
      dial(connection, endpoint)
      return
    }
    let loopBound = NIOLoopBound(connection, eventLoop: eventLoop)
    // Domains over TLS when the gateway has a CA for them.
    let tls = state?.router.upstreamTLS
    ClientBootstrap(group: eventLoop)
      .channelOption(.socketOption(.tcp_nodelay), value: 1)
      .connectTimeout(.seconds(2))
      .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          if let tls {
            // A name (the configured one for an address found by resolving it) is sent as SNI and
            // checked against the certificate; an IP address is checked against its IP addresses.
            try channel.pipeline.syncOperations.addHandler(
              NIOSSLClientHandler(context: tls, serverHostname: endpoint.tlsName))
          }
          try channel.pipeline.syncOperations.addHandler(loopBound.value)
        }
      }
      .connect(host: endpoint.host, port: endpoint.port)
      .whenFailure { _ in loopBound.value.lost() }
  }
}
