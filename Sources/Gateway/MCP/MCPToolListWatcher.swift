internal import ServiceLifecycle

/// Tells every MCP session with a stream open that the tools changed
/// (`notifications/tools/list_changed`) when the routing table does: a domain came, went, or
/// declared other intents (the directory's generation moved). Looks every `interval`.
struct MCPToolListWatcher: Service {
  let sessions: MCPSessions
  let generation: @Sendable () -> Int
  var interval: Duration = .seconds(1)

  func run() async throws {
    // Ends quietly when the gateway shuts down: a stop is no failure of the service.
    await cancelWhenGracefulShutdown {
      var seen = generation()
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard !Task.isCancelled else { break }
        let now = generation()
        if now != seen {
          seen = now
          await sessions.notifyAll(JSONRPCMessage.notification(method: "notifications/tools/list_changed"))
        }
      }
    }
  }
}
