internal import IntentsKit
internal import Synchronization

/// What one SQLite connection's transactions read and may reuse (`ReadCachingDatabase`): values by
/// key, all of them read while the database was at one `Stamp`. A transaction that finds the
/// database at another stamp drops them all.
final class ReadCache: Sendable {
  /// Where the database is: SQLite's data version on this connection (it moves when another
  /// connection, in this process or another, commits) and this connection's count of changed rows
  /// (it moves with each of its own writes, committed or not).
  struct Stamp: Equatable, Sendable {
    let dataVersion: Int64
    let changes: Int64
  }

  private struct State {
    var stamp: Stamp?
    var values: [ReadCacheKey: any Sendable] = [:]
  }

  /// Most values kept; past it the cache starts again empty.
  static let capacity = 512
  private let state = Mutex(State())

  /// The value kept under `key` at `stamp`, if any.
  func value<Value>(_ key: ReadCacheKey, as type: Value.Type, at stamp: Stamp) -> Value? {
    state.withLock { state in
      // Unwrapped before the cast: a missing key cast to an optional `Value` would be a kept nil.
      guard state.stamp == stamp, let kept = state.values[key] else { return nil }
      return kept as? Value
    }
  }

  /// Keeps `value`, read at `stamp`; values read at another stamp are dropped.
  func keep(_ value: any Sendable, for key: ReadCacheKey, at stamp: Stamp) {
    state.withLock { state in
      if state.stamp != stamp || state.values.count >= Self.capacity {
        state.values.removeAll(keepingCapacity: true)
        state.stamp = stamp
      }
      state.values[key] = value
    }
  }

  /// Drops every value: a rolled-back transaction may have kept what its own writes showed.
  func clear() {
    state.withLock { state in
      state.values.removeAll()
      state.stamp = nil
    }
  }

  /// How many values are kept (for tests).
  var count: Int { state.withLock { $0.values.count } }
}
