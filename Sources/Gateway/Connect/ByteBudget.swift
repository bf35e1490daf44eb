internal import Synchronization

/// Bytes all web requests of the process may hold at once (bodies being read, then answered):
/// past it, a request is refused `resource_exhausted` rather than buffered.
final class ByteBudget: Sendable {
  let limit: Int
  private let used = Atomic<Int>(0)

  init(limit: Int) {
    self.limit = limit
  }

  /// Takes `bytes` from the budget; false (and nothing taken) when they do not fit.
  func take(_ bytes: Int) -> Bool {
    let total = used.wrappingAdd(bytes, ordering: .relaxed).newValue
    guard total <= limit else {
      used.wrappingSubtract(bytes, ordering: .relaxed)
      return false
    }
    return true
  }

  func give(_ bytes: Int) {
    if bytes > 0 { used.wrappingSubtract(bytes, ordering: .relaxed) }
  }

  var inUse: Int { used.load(ordering: .relaxed) }
}
