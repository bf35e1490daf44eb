internal import SwiftProtobuf
internal import GRPCCore
internal import ServiceKit

/// The time a forwarded call may take: what is left of the caller's deadline (`grpc-timeout`), or a
/// default when the caller set none, never more than a cap.
struct CallDeadline: Sendable {
  var defaultTimeout: Duration
  var maximumTimeout: Duration

  init(defaultTimeout: Duration, maximumTimeout: Duration) {
    self.defaultTimeout = defaultTimeout
    self.maximumTimeout = maximumTimeout
  }

  /// The timeout for a domain call made `elapsed` after the request arrived with `metadata`.
  func timeout(for metadata: Metadata, elapsed: Duration = .zero) -> Duration {
    let asked = metadata[stringValues: "grpc-timeout"].first(where: { _ in true }).flatMap(GRPCTimeout.parse)
    let budget = min(asked ?? defaultTimeout, maximumTimeout)
    return max(budget - elapsed, .milliseconds(1))
  }
}
