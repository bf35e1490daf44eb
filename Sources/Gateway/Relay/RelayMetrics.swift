internal import GRPCCore
internal import ServiceKit

/// Relayed calls in the gateway's metrics, under the same names as the calls its gRPC server
/// answers itself: started, handled by status code (read from the upstream's trailers), timed.
struct RelayMetrics: Sendable {
  let metrics: RPCMetrics?

  init(metrics: RPCMetrics?) {
    self.metrics = metrics
  }

  typealias Call = RPCMetrics.CallRecord

  /// The collectors of calls to `path` ("/package.Service/Method"); nil without metrics.
  func collectors(path: String) -> RPCMetrics.Method? {
    guard let metrics else { return nil }
    let parts = path.split(separator: "/")
    guard parts.count == 2 else { return metrics.method(service: "unknown", method: "unknown") }
    return metrics.method(service: String(parts[0]), method: String(parts[1]))
  }

  /// Records the start of a call counted by `collectors`.
  func started(_ collectors: RPCMetrics.Method?) -> Call? {
    guard let metrics, let collectors else { return nil }
    return metrics.started(collectors)
  }

  /// Forgets `call`, which the gateway's server takes over (and counts).
  func abandoned(_ call: Call?) {
    guard let metrics, let call else { return }
    metrics.abandoned(call)
  }

  /// Records the end of `call` with the `grpc-status` it ended with.
  func finished(_ call: Call?, status: String?) {
    guard let metrics, let call else { return }
    let code: String
    if status == "0" {
      code = "OK"
    } else if let status, let number = Int(status), let status = Status.Code(rawValue: number),
      let error = RPCError.Code(status)
    {
      code = MetricsInterceptor.name(error)
    } else {
      code = "UNKNOWN"
    }
    metrics.finished(call, code: code)
  }
}
