internal import Logging
internal import NIOCore
internal import Prometheus

/// What the relay's defences did, counted and logged: GOAWAYs and resets sent and received,
/// refused streams and connections, calls and connections timed out, malformed requests. Each
/// event is counted in `intentmesh_relay_events_total{event, code}`; the log gets at most one
/// line per event kind per second, saying how many more there were since. Used only on its
/// event loop (`RelayConnectionGate` counts refused connections from any thread).
final class RelayEventLog {
  private let registry: PrometheusCollectorRegistry?
  private let logger: Logger
  private var counters: [String: Counter] = [:]
  private var lastLogged: [String: NIODeadline] = [:]
  private var suppressed: [String: Int] = [:]
  /// Every event since start, by "event code" (for tests and for the log's summary).
  private(set) var counts: [String: Int] = [:]

  init(registry: PrometheusCollectorRegistry?, logger: Logger) {
    self.registry = registry
    self.logger = logger
  }

  static let metricName = "intentmesh_relay_events_total"
  static let help = "What the relay's defences did: GOAWAY, RST_STREAM and refusals sent and received, timeouts."

  /// Records `event` (e.g. "goaway_sent") with `code` (e.g. "ENHANCE_YOUR_CALM"); `detail` says why.
  /// Ordinary events (a client cancelling its call) are counted, not logged.
  func record(_ event: String, code: String, detail: @autoclosure () -> String, log: Bool = true) {
    let key = event + " " + code
    counts[key, default: 0] += 1
    if let registry {
      if let counter = counters[key] {
        counter.increment()
      } else {
        let counter = registry.makeCounter(
          name: Self.metricName, labels: [("event", event), ("code", code)], help: Self.help)
        counters[key] = counter
        counter.increment()
      }
    }
    guard log else { return }
    let now = NIODeadline.now()
    if let last = lastLogged[event], now - last < .seconds(1) {
      suppressed[event, default: 0] += 1
      return
    }
    lastLogged[event] = now
    let more = suppressed.removeValue(forKey: event) ?? 0
    logger.notice(
      "relay \(event): \(code)",
      metadata: ["detail": "\(detail())", "more_since_last_line": "\(more)"])
  }
}
