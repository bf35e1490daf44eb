internal import Logging
internal import ServiceLifecycle
internal import UnixSignals

/// Keeps the domain list's replicas current until graceful shutdown, and reloads the list on SIGHUP.
struct DiscoveryService: Service {
  let discovery: DomainDiscovery
  let logger: Logger

  func run() async throws {
    await cancelWhenGracefulShutdown {
      await withDiscardingTaskGroup { group in
        group.addTask { await discovery.run() }
        group.addTask {
          for await _ in await UnixSignalsSequence(trapping: .sighup) {
            logger.info("SIGHUP: reloading the domain list")
            discovery.reload(because: "SIGHUP")
          }
        }
      }
    }
  }
}
