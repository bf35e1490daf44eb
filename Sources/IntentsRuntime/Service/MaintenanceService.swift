internal import IntentsKit
internal import IntentMeshProtos
internal import Foundation
internal import Logging
internal import ServiceLifecycle

/// Runs a domain's maintenance rounds inside the service group; stops at graceful shutdown, before
/// the store closes.
struct MaintenanceService: Service {
  let maintenance: DomainMaintenance
  let store: any IntentStore
  let now: @Sendable () -> Date
  let logger: Logger

  func run() async throws {
    await cancelWhenGracefulShutdown {
      while !Task.isCancelled {
        do {
          try await maintenance.run(store, now(), logger)
        } catch is CancellationError {
          return
        } catch {
          logger.error("maintenance round failed", metadata: ["error": "\(error)"])
        }
        try? await Task.sleep(for: maintenance.interval)
      }
    }
  }
}
