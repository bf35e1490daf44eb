internal import NIOCore
internal import ServiceKit

/// Writes the connections written to during one event-loop tick once, at its end: a call reads
/// on one connection and writes on another, and many calls share a connection. Used only on its
/// event loop.
final class FlushBatcher {
  private let eventLoop: any EventLoop
  private var pending: [RelayConnection] = []
  private var scheduled = false

  init(eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  /// Flushes `connection` before the event loop next waits for I/O.
  func flushSoon(_ connection: RelayConnection) {
    pending.append(connection)
    guard !scheduled else { return }
    scheduled = true
    let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
    eventLoop.execute { loopBound.value.flushAll() }
  }

  private func flushAll() {
    // A flush may close a connection, whose calls then write elsewhere: loop until none is left.
    while !pending.isEmpty {
      let connections = pending
      pending.removeAll(keepingCapacity: true)
      for connection in connections { connection.flushNow() }
    }
    scheduled = false
  }
}

/// What each event loop of the relay keeps: its upstream pool, its flush batcher, and what every
/// call needs to be routed and counted.
final class RelayLoopState {
  let pool: UpstreamPool
  let flusher: FlushBatcher
  let router: RelayRouter
  let metrics: RelayMetrics

  /// Each relayed method's metric collectors, looked up once per loop.
  private var collectors: [String: RPCMetrics.Method] = [:]

  /// Records the start of a relayed call to `path`.
  func startedCall(path: String) -> RelayMetrics.Call? {
    if let known = collectors[path] { return metrics.started(known) }
    guard let made = metrics.collectors(path: path) else { return nil }
    collectors[path] = made
    return metrics.started(made)
  }

  init(eventLoop: any EventLoop, router: RelayRouter, metrics: RelayMetrics) {
    flusher = FlushBatcher(eventLoop: eventLoop)
    pool = UpstreamPool(eventLoop: eventLoop)
    self.router = router
    self.metrics = metrics
    pool.state = self
  }
}
