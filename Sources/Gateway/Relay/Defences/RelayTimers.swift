internal import NIOCore

/// The relay's clock for deadlines of whole seconds: on its event loop, a few times per shortest
/// timeout (at most once a second), it reads the time once and asks every client connection on
/// the loop to check its deadlines — the handshake, idleness, a peer that leaves output unread, a
/// call whose first message does not come. No call reads the clock or arms a timer of its own.
/// Runs only while the loop has connections. Used only on its event loop.
final class RelayTimers {
  private let eventLoop: any EventLoop
  private let interval: TimeAmount
  private var connections: [ObjectIdentifier: RelayConnection] = [:]
  private var task: RepeatedTask?
  /// The time at the last tick (or when the first connection came): stamps of openings and idleness.
  private(set) var now: NIODeadline

  init(eventLoop: any EventLoop, limits: RelayLimits) {
    self.eventLoop = eventLoop
    now = eventLoop.now
    let shortest = [
      limits.firstMessageTimeout, limits.handshakeTimeout, limits.idleTimeout, limits.stalledWriteTimeout,
    ]
    .min()!
    interval = TimeAmount(min(.seconds(1), max(shortest / 4, .milliseconds(20))))
  }

  /// Checks `connection` from now on, until `remove`.
  func add(_ connection: RelayConnection) {
    if task == nil {
      now = eventLoop.now
      let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
      task = eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in loopBound.value.tick() }
    }
    connections[ObjectIdentifier(connection)] = connection
  }

  func remove(_ connection: RelayConnection) {
    connections[ObjectIdentifier(connection)] = nil
    if connections.isEmpty {
      task?.cancel()
      task = nil
      catchUp?.cancel()
      catchUp = nil
    }
  }

  /// Calls whose first message timed out answered per tick: a burst (thousands of held streams
  /// expiring together) is answered over several short ticks, with I/O between them, instead of
  /// in one long one that would delay every other call on the loop.
  static let expiriesPerTick = 256
  /// When a tick left expired calls unanswered, how soon the next one comes.
  static let catchUpDelay = TimeAmount.milliseconds(5)
  private var catchUp: Scheduled<Void>?

  private func tick() {
    now = eventLoop.now
    var budget = Self.expiriesPerTick
    for connection in Array(connections.values) { connection.checkDeadlines(now: now, budget: &budget) }
    if budget <= 0, catchUp == nil, task != nil {
      let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
      catchUp = eventLoop.scheduleTask(in: Self.catchUpDelay) {
        loopBound.value.catchUp = nil
        loopBound.value.tick()
      }
    }
  }
}
