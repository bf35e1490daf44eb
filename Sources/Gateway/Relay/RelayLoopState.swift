internal import NIOCore
internal import ServiceKit

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
