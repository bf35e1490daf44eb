internal import GRPCCore
internal import IntentMeshProtos
internal import Logging
internal import Synchronization

/// How the directory follows its domains over time: each replica's grpc.health.v1 Watch (a change of
/// status triggers a Describe; a broken watch asks discovery to look the name up again), the periodic
/// Describe round, and the first round every caller may wait for.
extension DomainDirectory {
  static func healthName(_ status: Grpc_Health_V1_HealthCheckResponse.ServingStatus) -> String {
    switch status {
    case .serving: "SERVING"
    case .notServing: "NOT_SERVING"
    case .serviceUnknown: "SERVICE_UNKNOWN"
    default: "UNKNOWN"
    }
  }

  func refreshPeriodically() async {
    while !Task.isCancelled {
      try? await Task.sleep(for: refreshInterval)
      await refreshAll()
    }
  }

  /// Returns once every domain has been described (or failed to answer) at least once.
  func firstRoundCompleted() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let done = firstRound.withLock { state -> Bool in
        if !state.done { state.waiters.append(continuation) }
        return state.done
      }
      if done { continuation.resume() }
    }
  }

  func finishFirstRound() {
    let waiters = firstRound.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.done = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Follows the domain's grpc.health.v1 Watch; every change of status triggers a Describe.
  func watchHealth(of connection: DomainConnection) async {
    while !Task.isCancelled {
      do {
        var options = CallOptions.defaults
        options.waitForReady = true
        try await connection.healthClient.watch(.init(), options: options) { response in
          for try await message in response.messages {
            let health = Self.healthName(message.status)
            let changed = self.state.withLock { state -> Bool in
              guard let old = state.statuses[connection.endpoint]?.health else { return false }
              state.statuses[connection.endpoint]?.health = health
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
      // The replica may have moved (a rescheduled pod): discovery looks its name up again.
      connectionLost.withLock { $0 }?(connection.endpoint)
      try? await Task.sleep(for: .milliseconds(250))
    }
  }
}
