internal import Logging
internal import NIOCore
internal import PostgresNIO

/// Hears the other replicas' writes for a store's read cache: a connection of its own listens on
/// the schema's channel (`ChangeNotifications`) and tells the cache each table named, and the
/// barrier (`ChangeBarrier`) each barrier heard. The cache is used only while this connection is
/// known to hear: a barrier goes out at least every `heartbeat`, and one not heard within
/// `barrierTimeout` means the connection is lost (a silent partition, a server that dropped it) —
/// the cache stops, the connection is closed, and a new one is made after a pause that doubles up
/// to 5 s.
struct PostgresChangeListener: Sendable {
  let configuration: PostgresConnection.Configuration
  let channel: String
  let cache: PostgresReadCache
  let barrier: ChangeBarrier
  let logger: Logger
  var heartbeat: Duration = .seconds(5)
  var barrierTimeout: Duration = .seconds(3)

  private struct Lost: Error {}

  /// What the listener's connection is called on the server (`pg_stat_activity.application_name`).
  static func applicationName(_ channel: String) -> String { "intentmesh listener " + channel }

  /// Listens until cancelled.
  func run() async {
    var pause = Duration.milliseconds(100)
    var attempt = 0
    while !Task.isCancelled {
      attempt += 1
      let began = ContinuousClock.now
      do {
        var named = configuration
        named.options.additionalStartupParameters.append(("application_name", Self.applicationName(channel)))
        let connection = try await PostgresConnection.connect(configuration: named, id: attempt, logger: logger)
        do {
          try await listen(on: connection)
        } catch {
          logger.debug("the store's change listener stopped", metadata: ["error": "\(error)"])
        }
        try? await connection.close()
      } catch {
        logger.debug("the store's change listener cannot connect", metadata: ["error": "\(error)"])
      }
      cache.stopListening()
      barrier.sendThrough(nil)
      guard !Task.isCancelled else { return }
      // A connection that heard for a while starts the pauses over.
      if ContinuousClock.now - began > .seconds(30) { pause = .milliseconds(100) }
      try? await Task.sleep(for: pause)
      pause = min(pause * 2, .seconds(5))
    }
  }

  private func listen(on connection: PostgresConnection) async throws {
    try await connection.listen(on: channel) { notifications in
      // Waiters for a barrier sent while nothing listened would wait for it in vain. A session
      // hears its own notifications: barriers go out on this connection.
      barrier.abandon()
      barrier.sendThrough { [channel, logger] number in
        try await connection.query("SELECT pg_notify(\(channel), \(ChangeBarrier.payload(number)))", logger: logger)
      }
      cache.startListening()
      try await withThrowingTaskGroup(of: Void.self) { group in
        // Whatever ends the group stops the cache and lets every reader waiting for a barrier go
        // at once — before the group waits for its tasks to end.
        defer {
          cache.stopListening()
          barrier.sendThrough(nil)
        }
        group.addTask {
          // Closing the connection ends the notifications, however the stream takes cancellation.
          try await withTaskCancellationHandler {
            for try await notification in notifications {
              if let number = ChangeBarrier.number(in: notification.payload) {
                barrier.heard(number)
              } else {
                cache.changed(CollectionOfOne(notification.payload))
              }
            }
          } onCancel: {
            _ = connection.close() as EventLoopFuture<Void>
          }
          throw Lost()
        }
        group.addTask {
          while true {
            try await Task.sleep(for: heartbeat)
            // Not heard once the group ends: given up, and every reader waiting with it goes on.
            _ = await withTaskCancellationHandler {
              await barrier.passed()
            } onCancel: {
              barrier.abandon()
            }
          }
        }
        group.addTask {
          while true {
            try await Task.sleep(for: .milliseconds(200))
            if barrier.isLate(by: barrierTimeout) { throw Lost() }
          }
        }
        try await group.next()
        group.cancelAll()
      }
    }
  }
}
