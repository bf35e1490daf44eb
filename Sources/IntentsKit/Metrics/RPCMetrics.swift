package import Prometheus

/// The gRPC server metrics a service exports, in the names Prometheus users know from
/// go-grpc-prometheus: calls started, calls handled by status code, handling time, calls in flight.
package final class RPCMetrics: Sendable {
  /// The registry the `/metrics` endpoint renders.
  package let registry: PrometheusCollectorRegistry
  private let inFlightTotal: Gauge

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

  /// Records a call's start; returns what `finished` needs.
  package func started(service: String, method: String) -> CallRecord {
    let labels = [("grpc_service", service), ("grpc_method", method)]
    registry.makeCounter(descriptor: Self.name("started", "total", "Calls started, by method."), labels: labels)
      .increment()
    let gauge = registry.makeGauge(
      descriptor: Self.name("in_flight", "calls", "Calls this server is handling now, by method."), labels: labels)
    gauge.increment()
    inFlightTotal.increment()
    return CallRecord(service: service, method: method, start: .now, inFlight: gauge)
  }

  /// Records a call's end with its status code name (e.g. "OK", "NOT_FOUND").
  package func finished(_ record: CallRecord, code: String) {
    let labels = [("grpc_service", record.service), ("grpc_method", record.method)]
    registry.makeCounter(
      descriptor: Self.name("handled", "total", "Calls completed, by method and gRPC status code."),
      labels: labels + [("grpc_code", code)]
    ).increment()
    registry.makeDurationHistogram(
      descriptor: Self.name("handling", "seconds", "Time from a call's start to its status, by method."),
      labels: labels, buckets: Self.buckets
    ).record(ContinuousClock.now - record.start)
    record.inFlight.decrement()
    inFlightTotal.decrement()
  }

  /// `grpc_server_<metric>_<unit>`.
  static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(namespace: "grpc", subsystem: "server", metricName: metric, unitName: unit, helpText: help)
  }

  /// Forgets a call that another server goes on to count: it is no longer in flight here.
  package func abandoned(_ record: CallRecord) {
    record.inFlight.decrement()
    inFlightTotal.decrement()
  }

  /// The text exposition of every metric.
  package func render() -> [UInt8] {
    registry.emitToBuffer()
  }

  /// One call being measured.
  package struct CallRecord: Sendable {
    let service: String
    let method: String
    let start: ContinuousClock.Instant
    let inFlight: Gauge
  }
}
