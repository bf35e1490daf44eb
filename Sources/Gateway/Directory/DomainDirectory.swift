internal import SwiftProtobuf
internal import GRPCCore
internal import IntentMeshProtos
internal import Logging
internal import Synchronization
internal import ServiceKit

/// The domains the gateway knows: it calls Describe on each at start, periodically and whenever a
/// domain's health changes, and rebuilds the routing table from their manifests. A domain that adds
/// an intent is routed to after its next Describe, with no gateway restart. Its replicas may change
/// while it runs (`setEndpoints`, from `DomainDiscovery`): a new one is connected and described, one
/// that leaves is taken out of the routing table at once and its connection closed once the calls
/// in flight on it have finished.
final class DomainDirectory: Sendable {
  struct DomainStatus: Sendable {
    var manifest: Intentmesh_V1_ExtensionManifest?
    var health: String = "UNKNOWN"
    var lastError: String = ""
    /// The files its reflection serves for what the manifest declares (kept while it is down).
    var descriptors = DomainDescriptors()
    /// The manifest they were last asked for: asked again when it changes or the domain comes back.
    var descriptorsAskedFor: Intentmesh_V1_ExtensionManifest?
  }

  struct State {
    /// The replicas in the domain list, in its order.
    var connections: [DomainConnection]
    /// Replicas that left the list, until the calls in flight on them have finished.
    var draining: [DomainConnection] = []
    var statuses: [DomainEndpoint: DomainStatus]
    var table = RoutingTable(manifests: [])
    var descriptorChanges = 0
    /// Grows whenever the manifests or the domains' descriptors change.
    var generation = 0
    /// Replicas out of rotation because their calls time out.
    var outliers = ReplicaOutliers()
  }

  let refreshInterval: Duration
  private let tls: ClientTLS?
  let logger: Logger
  let state: Mutex<State>
  /// How many replicas `state.outliers` keeps a record of (failures in a row, an ejection), kept
  /// beside it so that a call's success needs no lock while it is 0.
  private let outliersRecorded = Atomic<Int>(0)
  let firstRound = Mutex<(done: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
  /// Connections to start serving (every one, from the first).
  private let additions = AsyncStream.makeStream(of: DomainConnection.self)
  let connectionLost = Mutex<(@Sendable (DomainEndpoint) -> Void)?>(nil)

  init(endpoints: [DomainEndpoint], refreshInterval: Duration, tls: ClientTLS? = nil, logger: Logger) throws {
    let connections = try Self.unique(endpoints).map { try DomainConnection(endpoint: $0, tls: tls) }
    self.refreshInterval = refreshInterval
    self.tls = tls
    self.logger = logger
    self.state = Mutex(
      State(
        connections: connections,
        statuses: Dictionary(uniqueKeysWithValues: connections.map { ($0.endpoint, DomainStatus()) })))
    for connection in connections { additions.continuation.yield(connection) }
  }

  /// The replicas in the domain list, in its order.
  var connections: [DomainConnection] { state.withLock { $0.connections } }

  /// The current routing table.
  var table: RoutingTable { state.withLock { $0.table } }

  /// A count that grows whenever a domain's manifest or descriptors change: what is built from
  /// them is built again only then.
  var generation: Int { state.withLock { $0.generation } }

  /// Called when a replica's connection fails (its health watch ends): discovery resolves again.
  func onConnectionLost(_ action: @escaping @Sendable (DomainEndpoint) -> Void) {
    connectionLost.withLock { $0 = action }
  }

  /// Makes `endpoints` the domain list: replicas not in it yet are connected (and described at
  /// once), replicas no longer in it leave the routing table now and are closed once their calls
  /// in flight end. Returns what changed.
  @discardableResult
  func setEndpoints(_ endpoints: [DomainEndpoint]) throws -> (
    added: [DomainEndpoint], removed: [DomainEndpoint]
  ) {
    let endpoints = Self.unique(endpoints)
    let known = Set(state.withLock { $0.connections.map(\.endpoint) })
    let fresh = try endpoints.filter { !known.contains($0) }.map { try DomainConnection(endpoint: $0, tls: tls) }
    let removed = state.withLock { state -> [DomainConnection] in
      let wanted = Set(endpoints)
      let leaving = state.connections.filter { !wanted.contains($0.endpoint) }
      let staying = state.connections.filter { wanted.contains($0.endpoint) } + fresh
      state.connections = endpoints.compactMap { endpoint in staying.first { $0.endpoint == endpoint } }
      for connection in fresh { state.statuses[connection.endpoint] = DomainStatus() }
      for connection in leaving { state.statuses[connection.endpoint] = nil }
      state.draining += leaving
      if !leaving.isEmpty {
        state.descriptorChanges += 1
        state.generation += 1
        state.generation += 1
      }
      Self.rebuildTable(&state)
      return leaving
    }
    for connection in fresh {
      logger.info("domain replica added", metadata: ["endpoint": "\(connection.endpoint)"])
      additions.continuation.yield(connection)
    }
    for connection in removed {
      logger.info("domain replica removed: draining", metadata: ["endpoint": "\(connection.endpoint)"])
      connection.retire()
    }
    return (fresh.map(\.endpoint), removed.map(\.endpoint))
  }

  private static func unique(_ endpoints: [DomainEndpoint]) -> [DomainEndpoint] {
    var seen = Set<DomainEndpoint>()
    return endpoints.filter { seen.insert($0).inserted }
  }

  /// Every domain's last known status.
  var statuses: [(DomainEndpoint, DomainStatus)] {
    state.withLock { state in
      state.connections.map { ($0.endpoint, state.statuses[$0.endpoint] ?? DomainStatus()) }
    }
  }

  /// What every domain's reflection serves for its manifest, and a count that grows when any of it
  /// changes (so a reader rebuilds only then).
  var descriptors: (changes: Int, domains: [DomainDescriptors]) {
    state.withLock { state in
      (state.descriptorChanges, state.connections.compactMap { state.statuses[$0.endpoint]?.descriptors })
    }
  }

  /// One of an app's replicas for the next call: a SERVING one at random, so calls spread over
  /// them and skip one that is down, and not one whose calls time out (`report`) while others
  /// answer; any one when none is SERVING (the call then says why).
  func choose(among replicas: [DomainEndpoint]) -> DomainEndpoint {
    guard replicas.count > 1 else { return replicas[0] }
    let now = ContinuousClock.now
    let candidates = state.withLock { state in
      let serving = replicas.filter { state.statuses[$0]?.health == "SERVING" }
      return state.outliers.available(among: serving.isEmpty ? replicas : serving, now: now)
    }
    return candidates.randomElement() ?? replicas[0]
  }

  /// A call to the replica at `endpoint` ended: answered, or `failed` — no answer in time. Enough
  /// failures in a row take it out of rotation for a while (`ReplicaOutliers`).
  func report(_ endpoint: DomainEndpoint, failed: Bool) {
    // Every answered call reports: while no replica has failed, that costs no lock.
    guard failed || outliersRecorded.load(ordering: .relaxed) > 0 else { return }
    let now = ContinuousClock.now
    let ejected = state.withLock { state in
      let ejected = state.outliers.record(endpoint, failed: failed, now: now)
      outliersRecorded.store(state.outliers.records.count, ordering: .relaxed)
      return ejected
    }
    if ejected {
      logger.warning(
        "domain replica out of rotation: its calls time out", metadata: ["endpoint": "\(endpoint)"])
    }
  }

  /// The last health the domain at `endpoint` reported ("SERVING", "NOT_SERVING", "UNKNOWN", …).
  func health(of endpoint: DomainEndpoint) -> String {
    state.withLock { $0.statuses[endpoint]?.health ?? "UNKNOWN" }
  }

  /// The connection to `endpoint`, also while it drains (a call that chose it just before it left).
  func connection(for endpoint: DomainEndpoint) -> DomainConnection? {
    state.withLock { state in
      state.connections.first { $0.endpoint == endpoint } ?? state.draining.last { $0.endpoint == endpoint }
    }
  }

  /// Keeps connections, health watches and periodic refreshes going until cancelled.
  func run() async {
    await withTaskCancellationHandler {
      await withDiscardingTaskGroup { group in
        group.addTask {
          await self.refreshAll()
          self.finishFirstRound()
          await self.refreshPeriodically()
        }
        // A replica added later is described as soon as its health watch sees it SERVING.
        for await connection in additions.stream {
          group.addTask { await self.serve(connection) }
        }
      }
    } onCancel: {
      additions.continuation.finish()
      let all = state.withLock { $0.connections + $0.draining }
      for connection in all { connection.shutdown() }
    }
  }

  /// Runs one replica's connection and health watch; once it is retired, stops the watch and lets
  /// the calls in flight finish before the connection closes.
  private func serve(_ connection: DomainConnection) async {
    await withDiscardingTaskGroup { group in
      group.addTask { try? await connection.run() }
      await withTaskGroup(of: Void.self) { watch in
        watch.addTask { await self.watchHealth(of: connection) }
        watch.addTask { await connection.untilRetired() }
        _ = await watch.next()
        watch.cancelAll()
      }
      connection.shutdown()
    }
    state.withLock { $0.draining.removeAll { $0 === connection } }
  }

  /// Describes every domain now; returns when all have answered or failed.
  func refreshAll() async {
    let connections = self.connections
    await withDiscardingTaskGroup { group in
      for connection in connections { group.addTask { await self.refresh(connection) } }
    }
  }

  /// Calls Describe on one domain and rebuilds the table. A domain that cannot be reached keeps its
  /// last manifest, so its intents fail UNAVAILABLE rather than NOT_FOUND.
  func refresh(_ connection: DomainConnection) async {
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
    state.withLock { $0.statuses[connection.endpoint]?.descriptorsAskedFor = manifest }
    do {
      let descriptors = try await DomainDescriptors.fetch(for: manifest, over: connection.client)
      state.withLock { state in
        guard state.statuses[connection.endpoint] != nil,
          state.statuses[connection.endpoint]?.descriptors != descriptors
        else { return }
        state.statuses[connection.endpoint]?.descriptors = descriptors
        state.descriptorChanges += 1
        state.generation += 1
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

  /// Changes the status of a replica still in the list (one that left is not brought back).
  func update(_ endpoint: DomainEndpoint, _ change: (inout DomainStatus) -> Void) {
    state.withLock { state in
      guard state.statuses[endpoint] != nil else { return }
      change(&state.statuses[endpoint]!)
      Self.rebuildTable(&state)
    }
  }

  private static func rebuildTable(_ state: inout State) {
    let table = RoutingTable(
      manifests: state.connections.compactMap { connection in
        state.statuses[connection.endpoint]?.manifest.map { (connection.endpoint, $0) }
      })
    if table.manifests != state.table.manifests { state.generation += 1 }
    state.table = table
  }
}
