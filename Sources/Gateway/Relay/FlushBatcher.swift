internal import NIOCore

/// Writes the connections written to during one event-loop tick once, at its end: a call reads
/// on one connection and writes on another, and many calls share a connection. Used only on its
/// event loop.
final class FlushBatcher {
  private let eventLoop: any EventLoop
  private var pending: [RelayConnection] = []
  private var scheduled = false

  init(eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  /// Flushes `connection` before the event loop next waits for I/O.
  func flushSoon(_ connection: RelayConnection) {
    pending.append(connection)
    guard !scheduled else { return }
    scheduled = true
    let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
    eventLoop.execute { loopBound.value.flushAll() }
  }

  private func flushAll() {
    // A flush may close a connection, whose calls then write elsewhere: loop until none is left.
    while !pending.isEmpty {
      let connections = pending
      pending.removeAll(keepingCapacity: true)
      for connection in connections { connection.flushNow() }
    }
    scheduled = false
  }
}
