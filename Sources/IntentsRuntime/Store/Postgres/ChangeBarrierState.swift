/// The decisions of `ChangeBarrier`, kept apart from its continuations and its sending so they can
/// be tested without a server. Barriers are numbered; at most one is on its way at a time. A
/// transaction that arrives needs a barrier sent after it arrived: the next number — sent at once
/// when none is on its way, otherwise when the one on its way is heard. Every transaction waiting
/// when a barrier is heard that it needs is let go; the ones that arrived after that barrier was
/// sent wait for the next, which is then sent.
struct ChangeBarrierState<Waiter> {
  private(set) var sent: UInt64 = 0
  private(set) var heard: UInt64 = 0
  private var waiting: [(needs: UInt64, waiter: Waiter)] = []

  /// Whether a barrier is on its way.
  var onItsWay: Bool { sent > heard }

  /// A transaction arrives with `waiter`: the barrier number it needs, and the number to send
  /// now, if one must be.
  mutating func arrive(_ waiter: Waiter) -> (needs: UInt64, send: UInt64?) {
    let needs = sent + 1
    waiting.append((needs, waiter))
    guard !onItsWay else { return (needs, nil) }
    sent = needs
    return (needs, needs)
  }

  /// Barrier `number` was heard: the waiters it lets go, and the next number to send, if any
  /// waiter needs it.
  mutating func heard(_ number: UInt64) -> (release: [Waiter], send: UInt64?) {
    guard number > heard, number <= sent else { return ([], nil) }
    heard = number
    var release: [Waiter] = []
    waiting.removeAll { entry in
      guard entry.needs <= number else { return false }
      release.append(entry.waiter)
      return true
    }
    guard !waiting.isEmpty, !onItsWay else { return (release, nil) }
    sent += 1
    return (release, sent)
  }

  /// The barrier on its way is taken as lost (not heard in time, or the listener went): every
  /// waiter is let go without it, and numbering goes on past it.
  mutating func abandon() -> [Waiter] {
    heard = sent
    let release = waiting.map(\.waiter)
    waiting.removeAll()
    return release
  }
}
