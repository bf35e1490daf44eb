internal import SwiftProtobuf
internal import GRPCCore
package import IntentMeshProtos
package import Logging
internal import Synchronization
package import ServiceKit

/// The domains the gateway knows: it calls Describe on each at start, periodically and whenever a
/// domain's health changes, and rebuilds the routing table from their manifests. A domain that adds
/// an intent is routed to after its next Describe, with no gateway restart.
package final class DomainDirectory: Sendable {
  package struct DomainStatus: Sendable {
    package var manifest: Intentmesh_V1_ExtensionManifest?
    package var health: String = "UNKNOWN"
    package var lastError: String = ""
    /// The files its reflection serves for what the manifest declares (kept while it is down).
    package var descriptors = DomainDescriptors()
    /// The manifest they were last asked for: asked again when it changes or the domain comes back.
    var descriptorsAskedFor: Intentmesh_V1_ExtensionManifest?
  }

  package let connections: [DomainConnection]
  private let refreshInterval: Duration
  private let logger: Logger
  private let state: Mutex<(statuses: [DomainEndpoint: DomainStatus], table: RoutingTable, descriptorChanges: Int)>
  private let firstRound = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

  package init(endpoints: [DomainEndpoint], refreshInterval: Duration, tls: ClientTLS? = nil, logger: Logger) throws {
    self.connections = try endpoints.map { try DomainConnection(endpoint: $0, tls: tls) }
    self.refreshInterval = refreshInterval
    self.logger = logger
    self.state = Mutex(
      (Dictionary(uniqueKeysWithValues: endpoints.map { ($0, DomainStatus()) }), RoutingTable(manifests: []), 0))
  }

  /// The current routing table.
  package var table: RoutingTable { state.withLock { $0.table } }

  /// Every domain's last known status.
  package var statuses: [(DomainEndpoint, DomainStatus)] {
    state.withLock { state in connections.map { ($0.endpoint, state.statuses[$0.endpoint] ?? DomainStatus()) } }
  }

  /// What every domain's reflection serves for its manifest, and a count that grows when any of it
  /// changes (so a reader rebuilds only then).
  package var descriptors: (changes: Int, domains: [DomainDescriptors]) {
    state.withLock { state in
      (state.descriptorChanges, connections.compactMap { state.statuses[$0.endpoint]?.descriptors })
    }
  }

  /// One of an app's replicas for the next call: a SERVING one at random, so calls spread over
  /// them and skip one that is down; any one when none is SERVING (the call then says why).
  package func choose(among replicas: [DomainEndpoint]) -> DomainEndpoint {
    guard replicas.count > 1 else { return replicas[0] }
    let serving = state.withLock { state in replicas.filter { state.statuses[$0]?.health == "SERVING" } }
    return (serving.isEmpty ? replicas : serving).randomElement() ?? replicas[0]
  }

  /// The last health the domain at `endpoint` reported ("SERVING", "NOT_SERVING", "UNKNOWN", …).
  package func health(of endpoint: DomainEndpoint) -> String {
    state.withLock { $0.statuses[endpoint]?.health ?? "UNKNOWN" }
  }

  package func connection(for endpoint: DomainEndpoint) -> DomainConnection? {
    connections.first { $0.endpoint == endpoint }
  }

  /// Keeps connections, health watches and periodic refreshes going until cancelled.
  package func run() async {
    await withTaskCancellationHandler {
      await withDiscardingTaskGroup { group in
        for connection in connections {
          group.addTask { try? await connection.run() }
          group.addTask { await self.watchHealth(of: connection) }
        }
        group.addTask {
          await self.refreshAll()
          self.finishFirstRound()
          await self.refreshPeriodically()
        }
      }
    } onCancel: {
      for connection in connections { connection.shutdown() }
    }
  }

  /// Describes every domain now; returns when all have answered or failed.
  package func refreshAll() async {
    await withDiscardingTaskGroup { group in
      for connection in connections { group.addTask { await self.refresh(connection) } }
    }
  }

  /// Calls Describe on one domain and rebuilds the table. A domain that cannot be reached keeps its
  /// last manifest, so its intents fail UNAVAILABLE rather than NOT_FOUND.
  package func refresh(_ connection: DomainConnection) async {
    do {
      var options = CallOptions.defaults
      options.timeout = .seconds(3)
      options.waitForReady = false
      let manifest = try await connection.extensionClient.describe(.init(), options: options).manifest
      let asked = state.withLock { $0.statuses[connection.endpoint]?.descriptorsAskedFor }
      update(connection.endpoint) { status in
        if status.manifest != manifest {
          self.logger.info(
            "routes from \(manifest.appName)",
            metadata: ["endpoint": "\(connection.endpoint)", "intents": "\(manifest.intents.count)"])
        }
        status.manifest = manifest
        status.lastError = ""
      }
      if asked != manifest { await describeTypes(of: manifest, at: connection) }
    } catch {
      let detail = (error as? RPCError).map { "\($0.code): \($0.message)" } ?? "\(error)"
      update(connection.endpoint) { $0.lastError = detail }
    }
  }

  /// Fetches the files the domain's reflection serves for `manifest`; a domain without reflection
  /// is still routed, its types just not described through the gateway.
  private func describeTypes(of manifest: Intentmesh_V1_ExtensionManifest, at connection: DomainConnection) async {
    state.withLock { $0.statuses[connection.endpoint, default: DomainStatus()].descriptorsAskedFor = manifest }
    do {
      let descriptors = try await DomainDescriptors.fetch(for: manifest, over: connection.client)
      state.withLock { state in
        guard state.statuses[connection.endpoint]?.descriptors != descriptors else { return }
        state.statuses[connection.endpoint, default: DomainStatus()].descriptors = descriptors
        state.descriptorChanges += 1
      }
    } catch {
      // A domain without reflection is not asked again for this manifest; any other failure (a
      // timeout on a busy machine, a connection lost) is retried at the next refresh.
      let unimplemented = (error as? RPCError)?.code == .unimplemented
      if !unimplemented {
        state.withLock { $0.statuses[connection.endpoint]?.descriptorsAskedFor = nil }
      }
      logger.log(
        level: unimplemented ? .info : .debug, "no descriptors from the domain's reflection",
        metadata: ["endpoint": "\(connection.endpoint)", "error": "\(error)"])
    }
  }

  private func update(_ endpoint: DomainEndpoint, _ change: (inout DomainStatus) -> Void) {
    state.withLock { state in
      change(&state.statuses[endpoint, default: DomainStatus()])
      state.table = RoutingTable(
        manifests: connections.compactMap { connection in
          state.statuses[connection.endpoint]?.manifest.map { (connection.endpoint, $0) }
        })
    }
  }

  static func healthName(_ status: Grpc_Health_V1_HealthCheckResponse.ServingStatus) -> String {
    switch status {
    case .serving: "SERVING"
    case .notServing: "NOT_SERVING"
    case .serviceUnknown: "SERVICE_UNKNOWN"
    default: "UNKNOWN"
    }
  }

  private func refreshPeriodically() async {
    while !Task.isCancelled {
      try? await Task.sleep(for: refreshInterval)
      await refreshAll()
    }
  }

  /// Returns once every domain has been described (or failed to answer) at least once.
  package func firstRoundCompleted() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = firstRound.withLock { state -> Bool in
        if !state.done { state.waiters.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }

  private func finishFirstRound() {
    let waiters = firstRound.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.done = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Follows the domain's grpc.health.v1 Watch; every change of status triggers a Describe.
  private func watchHealth(of connection: DomainConnection) async {
    while !Task.isCancelled {
      do {
        var options = CallOptions.defaults
        options.waitForReady = true
        try await connection.healthClient.watch(.init(), options: options) { response in
          for try await message in response.messages {
            let health = Self.healthName(message.status)
            let changed = self.state.withLock { state -> Bool in
              let old = state.statuses[connection.endpoint]?.health
              state.statuses[connection.endpoint, default: DomainStatus()].health = health
              // A domain that comes back may serve other files: ask again.
              if old != health { state.statuses[connection.endpoint]?.descriptorsAskedFor = nil }
              return old != health
            }
            if changed {
              self.logger.info(
                "domain health", metadata: ["endpoint": "\(connection.endpoint)", "health": "\(health)"])
              await self.refresh(connection)
            }
          }
        }
      } catch {
        if Task.isCancelled { return }
      }
      update(connection.endpoint) { $0.health = "UNKNOWN" }
      try? await Task.sleep(for: .milliseconds(250))
    }
  }
}
