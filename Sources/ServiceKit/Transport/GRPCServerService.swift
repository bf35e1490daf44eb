package import GRPCCore
internal import ServiceLifecycle
internal import NIOPosix

/// Runs a gRPC server as a swift-service-lifecycle service: graceful shutdown stops new calls and
/// lets the ones in flight finish. Its calls run where `calls` says: the server's task prefers that
/// executor, and every connection and call task it makes inherits the preference.
package struct GRPCServerService<Transport: ServerTransport>: Service {
  package let server: GRPCServer<Transport>
  private let executor: (any TaskExecutor)?

  package init(server: GRPCServer<Transport>, calls: CallExecutor = .pool) {
    self.server = server
    executor = calls.taskExecutor(group: .singleton)
  }

  package func run() async throws {
    try await withGracefulShutdownHandler {
      try await withTaskExecutorPreference(executor) { try await server.serve() }
    } onGracefulShutdown: {
      server.beginGracefulShutdown()
    }
  }
}
