internal import NIOPosix

/// Where a server runs its calls' code (`--call-executor`).
package enum CallExecutor: String, Sendable, CaseIterable {
  /// On the event loop of the connection the call came on (`LoopLocalTaskExecutor`): no thread
  /// hop between the connection's I/O and the call, so each call costs less CPU and waits less.
  /// One connection's calls share one core: fastest when connections are at least as many as the
  /// cores (the gateway's relay opens one per event loop of its own).
  case eventLoop = "event-loop"
  /// On Swift's shared threads: a hop to them and back per call, but one connection carrying many
  /// concurrent calls can use every core.
  case pool

  /// The executor a server's task prefers for this choice; nil: Swift's default.
  func taskExecutor(group: MultiThreadedEventLoopGroup) -> (any TaskExecutor)? {
    switch self {
    case .eventLoop: LoopLocalTaskExecutor(group: group)
    case .pool: nil
    }
  }
}
