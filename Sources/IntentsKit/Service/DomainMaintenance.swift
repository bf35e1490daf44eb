internal import IntentMeshProtos
package import Foundation
package import Logging

/// A domain's periodic work: run once when the service starts and then every `interval`, with the
/// service's clock, until shutdown. A failed round is logged and the next one runs as planned.
package struct DomainMaintenance: Sendable {
  package var interval: Duration
  package var run: @Sendable (any IntentStore, Date, Logger) async throws -> Void

  package init(interval: Duration, run: @escaping @Sendable (any IntentStore, Date, Logger) async throws -> Void) {
    self.interval = interval
    self.run = run
  }
}
