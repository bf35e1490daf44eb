internal import Logging
internal import Synchronization

/// Keeps the directory's replicas equal to what the domain list stands for now: it resolves every
/// name in the list (each address a replica), again every `interval`, soon after a replica's
/// connection fails, and at once when the list is reloaded (SIGHUP, or its file changed), then
/// hands the result to `DomainDirectory.setEndpoints`, which adds the new and drains the gone.
final class DomainDiscovery: Sendable {
  /// Why it looks again.
  enum Wakeup: Sendable {
    case schedule
    case reload(reason: String)
    case connectionLost
  }

  private let directory: DomainDirectory
  private let list: DomainList
  private let resolver: any AddressResolver
  private let interval: Duration
  private let logger: Logger
  private let plan: Mutex<ReplicaPlan>
  private let wakeups = AsyncStream.makeStream(of: Wakeup.self, bufferingPolicy: .bufferingNewest(4))

  /// `initial` is the plan the directory was made from (`firstPlan`).
  init(
    directory: DomainDirectory, list: DomainList, initial: ReplicaPlan, resolver: any AddressResolver,
    interval: Duration, logger: Logger
  ) {
    self.directory = directory
    self.list = list
    self.resolver = resolver
    self.interval = interval
    self.logger = logger
    self.plan = Mutex(initial)
  }

  /// The replicas of the list as it is at start, before the directory exists.
  static func firstPlan(
    of list: DomainList, resolver: any AddressResolver, logger: Logger
  ) async throws -> ReplicaPlan {
    let plan = await resolve(try list.entries(), resolver: resolver, previous: [:])
    log(plan.failures, logger: logger)
    return plan
  }

  /// Reads the list again and applies it now (SIGHUP).
  func reload(because reason: String) {
    wakeups.continuation.yield(.reload(reason: reason))
  }

  /// Resolves and reloads until cancelled.
  func run() async {
    directory.onConnectionLost { [wakeups] _ in wakeups.continuation.yield(.connectionLost) }
    var entries = (try? list.entries()) ?? []
    await withTaskCancellationHandler {
      await withDiscardingTaskGroup { group in
        group.addTask { [wakeups, interval] in
          while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            wakeups.continuation.yield(.schedule)
          }
        }
        var lastLost = ContinuousClock.now - .seconds(60)
        for await wakeup in wakeups.stream {
          switch wakeup {
          case .schedule:
            if list.fileChanged() { entries = reloaded(entries, because: "its file changed") }
          case .reload(let reason):
            entries = reloaded(entries, because: reason)
          case .connectionLost:
            // A replica that is down fails again every few hundred milliseconds: once a second.
            guard ContinuousClock.now - lastLost >= .seconds(1) else { continue }
            lastLost = .now
          }
          await apply(entries)
        }
        group.cancelAll()
      }
    } onCancel: { [wakeups] in
      wakeups.continuation.finish()
    }
  }

  /// The list read again, or the old one (logged) when the file is not valid.
  private func reloaded(_ entries: [DomainEndpoint], because reason: String) -> [DomainEndpoint] {
    do {
      let fresh = try list.entries()
      if fresh != entries {
        logger.info(
          "domain list reloaded", metadata: ["reason": "\(reason)", "domains": "\(fresh.map(\.description))"])
      }
      return fresh
    } catch {
      logger.error(
        "domain list not reloaded: keeping the last one", metadata: ["reason": "\(reason)", "error": "\(error)"])
      return entries
    }
  }

  private func apply(_ entries: [DomainEndpoint]) async {
    let previous = plan.withLock { $0.addresses }
    let next = await Self.resolve(entries, resolver: resolver, previous: previous)
    plan.withLock { $0 = next }
    Self.log(next.failures, logger: logger)
    do {
      try directory.setEndpoints(next.endpoints)
    } catch {
      logger.error("domain replicas not changed", metadata: ["error": "\(error)"])
    }
  }

  static func resolve(
    _ entries: [DomainEndpoint], resolver: any AddressResolver, previous: [String: [String]]
  ) async -> ReplicaPlan {
    let names = ReplicaPlan.names(in: entries)
    var lookups: [String: Result<[String], AddressLookupError>] = [:]
    await withTaskGroup(of: (String, Result<[String], AddressLookupError>).self) { group in
      for name in names {
        group.addTask {
          do {
            return (name, .success(try await resolver.addresses(of: name)))
          } catch let error as AddressLookupError {
            return (name, .failure(error))
          } catch {
            return (name, .failure(AddressLookupError(name: name, reason: "\(error)")))
          }
        }
      }
      for await (name, result) in group { lookups[name] = result }
    }
    return ReplicaPlan(entries: entries, lookups: lookups, previous: previous)
  }

  private static func log(_ failures: [String: String], logger: Logger) {
    for (name, reason) in failures.sorted(by: { $0.key < $1.key }) {
      logger.warning(
        "a domain name did not resolve: keeping its last addresses",
        metadata: ["name": "\(name)", "reason": "\(reason)"])
    }
  }
}
