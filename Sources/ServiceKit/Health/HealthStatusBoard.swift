internal import SwiftProtobuf
#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
package import IntentMeshProtos
internal import Synchronization

/// The serving status of each service name ("" is the whole server), with change streams for Watch.
package final class HealthStatusBoard: Sendable {
  package typealias Status = Grpc_Health_V1_HealthCheckResponse.ServingStatus

  private struct State {
    var statuses: [String: Status] = [:]
    var watchers: [UUID: (service: String, continuation: AsyncStream<Status>.Continuation)] = [:]
    var finished = false
  }

  private let state = Mutex(State())

  package init() {}

  /// Sets the status of `service` and tells its watchers.
  package func set(_ status: Status, for service: String) {
    let continuations = state.withLock { state in
      state.statuses[service] = status
      return state.watchers.values.filter { $0.service == service }.map(\.continuation)
    }
    for continuation in continuations { continuation.yield(status) }
  }

  /// The status of `service`; nil when the server does not know it.
  package func status(of service: String) -> Status? {
    state.withLock { $0.statuses[service] }
  }

  /// The status of `service` now and after each change; SERVICE_UNKNOWN while it is unknown.
  /// Ends when the board is finished (server shutdown) or the consumer goes away.
  package func updates(for service: String) -> AsyncStream<Status> {
    let (stream, continuation) = AsyncStream.makeStream(of: Status.self, bufferingPolicy: .bufferingNewest(8))
    let id = UUID()
    let finished = state.withLock { state -> Bool in
      if state.finished { return true }
      state.watchers[id] = (service, continuation)
      continuation.yield(state.statuses[service] ?? .serviceUnknown)
      return false
    }
    if finished {
      continuation.yield(state.withLock { $0.statuses[service] } ?? .serviceUnknown)
      continuation.finish()
    }
    continuation.onTermination = { [weak self] _ in
      self?.state.withLock { _ = $0.watchers.removeValue(forKey: id) }
    }
    return stream
  }

  /// Ends every Watch stream; later watchers get the last status and end at once.
  package func finish() {
    let continuations = state.withLock { state in
      state.finished = true
      let all = state.watchers.values.map(\.continuation)
      state.watchers.removeAll()
      return all
    }
    for continuation in continuations { continuation.finish() }
  }
}
