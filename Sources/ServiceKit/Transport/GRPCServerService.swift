package import GRPCCore
internal import ServiceLifecycle

/// Runs a gRPC server as a swift-service-lifecycle service: graceful shutdown stops new calls and
/// lets the ones in flight finish.
package struct GRPCServerService<Transport: ServerTransport>: Service {
  package let server: GRPCServer<Transport>

  package init(server: GRPCServer<Transport>) {
    self.server = server
  }

  package func run() async throws {
    try await withGracefulShutdownHandler {
      try await server.serve()
    } onGracefulShutdown: {
      server.beginGracefulShutdown()
    }
  }
}
