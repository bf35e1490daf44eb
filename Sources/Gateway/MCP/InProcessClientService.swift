internal import GRPCCore
internal import GRPCInProcessTransport
internal import ServiceLifecycle

/// Runs the in-process client MCP's tool calls use, as a service: its connection lives while the
/// gateway does, and closes gracefully (calls in flight finish) when it shuts down.
struct InProcessClientService: Service {
  let client: GRPCClient<InProcessTransport.Client>

  func run() async throws {
    try await withGracefulShutdownHandler {
      try await client.runConnections()
    } onGracefulShutdown: {
      client.beginGracefulShutdown()
    }
  }
}
