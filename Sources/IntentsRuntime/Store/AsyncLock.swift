internal import SwiftProtobuf
internal import Synchronization

/// A lock that suspends instead of blocking: holders run one at a time, waiters in arrival order.
final class AsyncLock: Sendable {
  private struct State {
    var locked = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = Mutex(State())

  init() {}

  /// Runs `body` while holding the lock.
  func withLock<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
    // A free lock is taken without suspending: a suspension would resume the task through the
    // executor, often on another thread.
    if !tryAcquire() { await acquire() }
    defer { release() }
    return try await body()
  }

  /// Takes the lock, waiting for it if it is held. Pair with `unlock()`; prefer `withLock`.
  func lock() async {
    if !tryAcquire() { await acquire() }
  }

  /// Lets the next waiter, if any, take the lock.
  func unlock() { release() }

  /// How many tasks wait for the lock: asked by its holder, when there are any, the first is the
  /// next to hold it.
  var waiting: Int { state.withLock { $0.waiters.count } }

  private func tryAcquire() -> Bool {
    state.withLock { state in
      guard !state.locked else { return false }
      state.locked = true
      return true
    }
  }

  private func acquire() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let granted = state.withLock { state -> Bool in
        if state.locked {
          state.waiters.append(continuation)
          return false
        }
        state.locked = true
        return true
      }
      if granted { continuation.resume() }
    }
  }

  private func release() {
    let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if state.waiters.isEmpty {
        state.locked = false
        return nil
      }
      return state.waiters.removeFirst()
    }
    next?.resume()
  }
}
