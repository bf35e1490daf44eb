internal import NIOCore

/// Flushes the channels written to during one event-loop tick once, at its end: a relay writes to
/// the other connection, where NIOHTTP2's own coalescing (during a read loop of the same
/// connection) does not apply. Used only on its event loop.
final class FlushBatcher {
  private let eventLoop: any EventLoop
  private var pending: [any Channel] = []
  private var scheduled = false

  init(eventLoop: any EventLoop) {
    self.eventLoop = eventLoop
  }

  /// Flushes `channel` before the event loop next waits for I/O.
  func flushSoon(_ channel: any Channel) {
    pending.append(channel)
    guard !scheduled else { return }
    scheduled = true
    let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
    eventLoop.execute { loopBound.value.flushAll() }
  }

  private func flushAll() {
    scheduled = false
    let channels = pending
    pending.removeAll(keepingCapacity: true)
    for channel in channels { channel.flush() }
  }
}

/// What each event loop of the relay keeps: its upstream pool and its flush batcher.
final class RelayLoopState {
  let pool: UpstreamPool
  let flusher: FlushBatcher

  init(eventLoop: any EventLoop) {
    pool = UpstreamPool(eventLoop: eventLoop)
    flusher = FlushBatcher(eventLoop: eventLoop)
  }
}
