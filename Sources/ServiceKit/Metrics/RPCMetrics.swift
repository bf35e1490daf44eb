package import Prometheus
internal import Synchronization

/// The gRPC server metrics a service exports, in the names Prometheus users know from
/// go-grpc-prometheus: calls started, calls handled by status code, handling time, calls in flight.
/// A method's collectors are looked up in the registry once and kept, so a call costs one lock.
package final class RPCMetrics: Sendable {
  /// The registry the `/metrics` endpoint renders.
  package let registry: PrometheusCollectorRegistry
  private let inFlightTotal: Gauge
  private let methods = Mutex<[String: Method]>([:])
  /// Run before each rendering, for collectors that read their value when scraped.
  private let beforeRender = Mutex<[@Sendable () -> Void]>([])

  /// Latency buckets from 0.5 ms to 10 s.
  static let buckets: [Duration] = [
    .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
    .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5),
    .seconds(5), .seconds(10),
  ]

  package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
    self.registry = registry
    self.inFlightTotal = registry.makeGauge(
      descriptor: Self.name("in_flight_calls", "all", "Calls this server is handling now, all methods."))
  }

  /// One method's collectors.
  package final class Method: Sendable {
    let labels: [(String, String)]
    let started: Counter
    let inFlight: Gauge
    let handling: DurationHistogram
    let handled = Mutex<[String: Counter]>([:])

    init(registry: PrometheusCollectorRegistry, service: String, method: String) {
      labels = [("grpc_service", service), ("grpc_method", method)]
      started = registry.makeCounter(
        descriptor: RPCMetrics.name("started", "total", "Calls started, by method."), labels: labels)
      inFlight = registry.makeGauge(
        descriptor: RPCMetrics.name("in_flight", "calls", "Calls this server is handling now, by method."),
        labels: labels)
      handling = registry.makeDurationHistogram(
        descriptor: RPCMetrics.name("handling", "seconds", "Time from a call's start to its status, by method."),
        labels: labels, buckets: RPCMetrics.buckets)
    }
  }

  /// The collectors of `service`/`method`, made on first use; a caller that keeps them starts
  /// calls with `started(_:)` without this lookup.
  package func method(service: String, method: String) -> Method {
    let key = service + "/" + method
    return methods.withLock { methods in
      if let known = methods[key] { return known }
      let made = Method(registry: registry, service: service, method: method)
      methods[key] = made
      return made
    }
  }

  /// Records a call's start; returns what `finished` needs.
  package func started(service: String, method: String) -> CallRecord {
    started(self.method(service: service, method: method))
  }

  /// Records the start of a call of the method whose collectors are `collectors`.
  package func started(_ collectors: Method) -> CallRecord {
    collectors.started.increment()
    collectors.inFlight.increment()
    inFlightTotal.increment()
    return CallRecord(method: collectors, start: .now)
  }

  /// Records a call's end with its status code name (e.g. "OK", "NOT_FOUND").
  package func finished(_ record: CallRecord, code: String) {
    let method = record.method
    let counter = method.handled.withLock { handled in
      if let known = handled[code] { return known }
      let made = registry.makeCounter(
        descriptor: Self.name("handled", "total", "Calls completed, by method and gRPC status code."),
        labels: method.labels + [("grpc_code", code)])
      handled[code] = made
      return made
    }
    counter.increment()
    method.handling.record(ContinuousClock.now - record.start)
    method.inFlight.decrement()
    inFlightTotal.decrement()
  }

  /// Forgets a call that another server goes on to count: it is no longer in flight here.
  package func abandoned(_ record: CallRecord) {
    record.method.inFlight.decrement()
    inFlightTotal.decrement()
  }

  /// `grpc_server_<metric>_<unit>`.
  static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(namespace: "grpc", subsystem: "server", metricName: metric, unitName: unit, helpText: help)
  }

  /// Runs `update` before each rendering: for collectors brought up to date when scraped rather
  /// than on every event they count.
  package func updateBeforeRendering(_ update: @escaping @Sendable () -> Void) {
    beforeRender.withLock { $0.append(update) }
  }

  /// The text exposition of every metric.
  package func render() -> [UInt8] {
    for update in beforeRender.withLock({ $0 }) { update() }
    return registry.emitToBuffer()
  }

  /// One call being measured.
  package struct CallRecord: Sendable {
    let method: Method
    let start: ContinuousClock.Instant
  }
}
