internal import Synchronization

/// Makes a read see, through the read cache, every write committed before it began — on any
/// replica. A notification is sent on the schema's channel (a barrier); PostgreSQL queues
/// notifications in the order their transactions commit, so once the listener has heard the
/// barrier it has heard every change committed before the barrier was sent, and the cache has
/// counted them. Transactions arriving together share a barrier (`ChangeBarrierState`).
final class ChangeBarrier: Sendable {
  private typealias Waiter = CheckedContinuation<Bool, Never>

  /// Sends barrier `number` on the channel.
  typealias Send = @Sendable (_ number: UInt64) async throws -> Void

  private struct State {
    var barriers = ChangeBarrierState<Waiter>()
    /// When the barrier on its way was sent.
    var sentAt: ContinuousClock.Instant?
    /// How barriers are sent: through the listener's own connection, while it listens — never
    /// through the pool, whose connections may all be held by transactions waiting for a barrier.
    var send: Send?
  }

  private let state = Mutex(State())

  /// What a barrier's payload starts with: no table's name has a colon.
  static let prefix = "intentmesh-barrier:"

  /// Barriers are sent by `send` from now on (nil: none can be; every waiter goes on without).
  func sendThrough(_ send: Send?) {
    state.withLock { $0.send = send }
    if send == nil { abandon() }
  }

  /// The payload of barrier `number`.
  static func payload(_ number: UInt64) -> String { prefix + String(number) }

  /// The barrier number in `payload`, if it is one.
  static func number(in payload: String) -> UInt64? {
    guard payload.hasPrefix(prefix) else { return nil }
    return UInt64(payload.dropFirst(prefix.count))
  }

  /// True once a barrier sent after this call has been heard; false when the barrier it waited
  /// for was given up (`abandon`).
  func passed() async -> Bool {
    await withCheckedContinuation { (waiter: Waiter) in
      let number = state.withLock { state in
        let (_, send) = state.barriers.arrive(waiter)
        if send != nil { state.sentAt = .now }
        return send
      }
      if let number { dispatch(number) }
    }
  }

  /// The listener heard barrier `number`.
  func heard(_ number: UInt64) {
    let (release, next) = state.withLock { state in
      let (release, send) = state.barriers.heard(number)
      if !state.barriers.onItsWay { state.sentAt = nil }
      if send != nil { state.sentAt = .now }
      return (release, send)
    }
    for waiter in release { waiter.resume(returning: true) }
    if let next { dispatch(next) }
  }

  /// Whether the barrier on its way was sent longer than `limit` ago.
  func isLate(by limit: Duration) -> Bool {
    state.withLock { state in
      guard let sentAt = state.sentAt else { return false }
      return ContinuousClock.now - sentAt > limit
    }
  }

  /// Gives up the barrier on its way: every transaction waiting goes on without the cache.
  func abandon() {
    let release = state.withLock { state in
      state.sentAt = nil
      return state.barriers.abandon()
    }
    for waiter in release { waiter.resume(returning: false) }
  }

  private func dispatch(_ number: UInt64) {
    guard let send = state.withLock({ $0.send }) else { return abandon() }
    Task {
      do {
        try await send(number)
      } catch {
        abandon()
      }
    }
  }
}
