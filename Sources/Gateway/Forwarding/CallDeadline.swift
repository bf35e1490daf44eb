internal import IntentMeshProtos
internal import SwiftProtobuf
package import GRPCCore

/// The time a forwarded call may take: what is left of the caller's deadline (`grpc-timeout`), or a
/// default when the caller set none, never more than a cap.
package struct CallDeadline: Sendable {
  var defaultTimeout: Duration
  var maximumTimeout: Duration

  package init(defaultTimeout: Duration, maximumTimeout: Duration) {
    self.defaultTimeout = defaultTimeout
    self.maximumTimeout = maximumTimeout
  }

  /// The timeout for a domain call made `elapsed` after the request arrived with `metadata`.
  package func timeout(for metadata: Metadata, elapsed: Duration = .zero) -> Duration {
    let asked = metadata[stringValues: "grpc-timeout"].first(where: { _ in true }).flatMap(Self.parse)
    let budget = min(asked ?? defaultTimeout, maximumTimeout)
    return max(budget - elapsed, .milliseconds(1))
  }

  /// Parses a gRPC timeout header: up to eight digits and a unit (H, M, S, m, u, n).
  package static func parse(_ text: String) -> Duration? {
    guard let unit = text.last, text.count >= 2, text.count <= 9, let value = Int64(text.dropLast()), value >= 0 else {
      return nil
    }
    switch unit {
    case "H": return .seconds(value * 3600)
    case "M": return .seconds(value * 60)
    case "S": return .seconds(value)
    case "m": return .milliseconds(value)
    case "u": return .microseconds(value)
    case "n": return .nanoseconds(value)
    default: return nil
    }
  }
}
