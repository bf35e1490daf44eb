package import Foundation
internal import Synchronization

/// A clock that moves only when told: `advance(by:)` wakes every sleeper whose deadline has come.
/// `sleeperCount` shows how many tasks wait on it — zero once every stream has ended or been
/// cancelled.
package final class ManualClock: DomainClock {
  private struct Sleeper {
    let id: UInt64
    let deadline: Date
    let continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now: Date
    var nextID: UInt64 = 0
    var sleepers: [Sleeper] = []
    /// Sleeps begun whose continuation is not registered yet.
    var starting: Set<UInt64> = []
    /// Of those, the ones cancelled before registering.
    var cancelled: Set<UInt64> = []
  }

  private let state: Mutex<State>

  package init(start: Date) {
    state = Mutex(State(now: start))
  }

  package func now() -> Date { state.withLock { $0.now } }

  var sleeperCount: Int { state.withLock { $0.sleepers.count } }

  /// Moves time on and wakes the sleepers that are due, earliest first.
  func advance(by seconds: TimeInterval) {
    let due = state.withLock { state -> [Sleeper] in
      state.now = state.now.addingTimeInterval(seconds)
      let now = state.now
      let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
      state.sleepers.removeAll { $0.deadline <= now }
      return due
    }
    for sleeper in due { sleeper.continuation.resume() }
  }

  package func sleep(until deadline: Date) async throws {
    let id = state.withLock { state -> UInt64 in
      state.nextID += 1
      state.starting.insert(state.nextID)
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        let resumeNow: Result<Void, any Error>? = state.withLock { state in
          state.starting.remove(id)
          if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
          if deadline <= state.now { return .success(()) }
          state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
          return nil
        }
        if let resumeNow { continuation.resume(with: resumeNow) }
      }
    } onCancel: {
      let sleeper = state.withLock { state -> Sleeper? in
        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
          // Not registered yet: the registration sees this. Already resumed: nothing to do.
          if state.starting.contains(id) { state.cancelled.insert(id) }
          return nil
        }
        return state.sleepers.remove(at: index)
      }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }
}
