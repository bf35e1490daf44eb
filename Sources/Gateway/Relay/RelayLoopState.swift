internal import Logging
internal import NIOCore
internal import ServiceKit

/// What each event loop of the relay keeps: its upstream pool, its flush batcher, its timers,
/// its share of the limits, and what every call needs to be routed and counted.
final class RelayLoopState {
  let pool: UpstreamPool
  let flusher: FlushBatcher
  let router: RelayRouter
  let metrics: RelayMetrics
  let limits: RelayLimits
  let timers: RelayTimers
  let events: RelayEventLog
  /// This loop's share of `limits.maxRoutingBytes`.
  let routingBudget: Int
  /// Request bytes the calls of this loop hold while they are routed.
  var routingBytes = 0
  /// This loop's share of `limits.maxLargeRequestBytes`.
  let largeRequests: LargeRequestBudget
  /// How many loops share the process's budgets.
  let loops: Int
  let eventLoop: any EventLoop
  /// The loop's clock (an embedded loop's in tests): rate budgets and timers read it.
  var now: NIODeadline { eventLoop.now }

  /// Each relayed method's metric collectors, looked up once per loop.
  private var collectors: [String: RPCMetrics.Method] = [:]

  /// Records the start of a relayed call to `path`.
  func startedCall(path: String) -> RelayMetrics.Call? {
    if let known = collectors[path] { return metrics.started(known) }
    guard let made = metrics.collectors(path: path) else { return nil }
    collectors[path] = made
    return metrics.started(made)
  }

  init(
    eventLoop: any EventLoop, router: RelayRouter, metrics: RelayMetrics, limits: RelayLimits = .defaults,
    loops: Int = 1, logger: Logger = Logger(label: "relay")
  ) {
    self.eventLoop = eventLoop
    flusher = FlushBatcher(eventLoop: eventLoop)
    pool = UpstreamPool(eventLoop: eventLoop)
    timers = RelayTimers(eventLoop: eventLoop, limits: limits)
    events = RelayEventLog(registry: metrics.metrics?.registry, logger: logger)
    routingBudget = max(limits.maxRoutingBytes / max(loops, 1), 1)
    largeRequests = LargeRequestBudget(limit: max(limits.maxLargeRequestBytes / max(loops, 1), 1))
    self.loops = max(loops, 1)
    self.router = router
    self.metrics = metrics
    self.limits = limits
    pool.state = self
  }
}
