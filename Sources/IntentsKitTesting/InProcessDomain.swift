internal import SwiftProtobuf
package import Foundation
package import GRPCCore
package import GRPCInProcessTransport
package import IntentMeshProtos
package import IntentsKit
package import IntentsRuntime
internal import Logging
internal import ServiceKit

/// Runs a domain in-process, exactly as its executable assembles it, for service tests: a fresh
/// store (`TestStore`), the IntentsExtension and health services behind an in-process transport, and a
/// generated client.
package struct InProcessDomain: Sendable {
  package typealias Client = Intentmesh_V1_IntentsExtension.Client<InProcessTransport.Client>
  package typealias HealthClient = Grpc_Health_V1_Health.Client<InProcessTransport.Client>

  package let definition: DomainDefinition
  package let manifestDirectory: URL
  package let now: @Sendable () -> Date

  package init(definition: DomainDefinition, manifestDirectory: URL, now: @escaping @Sendable () -> Date = { Date() }) {
    self.definition = definition
    self.manifestDirectory = manifestDirectory
    self.now = now
  }

  /// Serves the domain until `body` returns.
  package func run<T: Sendable>(
    _ body: (Client, HealthClient, PreparedDomain, any IntentStore) async throws -> T
  ) async throws -> T {
    try await serve { grpcClient, prepared, store in
      try await body(Client(wrapping: grpcClient), HealthClient(wrapping: grpcClient), prepared, store)
    }
  }

  /// Serves the domain until `body` returns, with the raw client: for the domain's app services.
  package func serve<T: Sendable>(
    _ body: (GRPCClient<InProcessTransport.Client>, PreparedDomain, any IntentStore) async throws -> T
  ) async throws -> T {
    var logger = Logger(label: "test.\(definition.serviceName)")
    logger.logLevel = .warning
    let opened = try await TestStore.open(named: definition.serviceName, logger: logger)
    let store = opened.store
    do {
      let prepared = try await PreparedDomain.prepare(
        definition: definition, store: store, manifestDirectory: manifestDirectory, now: now, logger: logger)
      prepared.board.set(.serving, for: "")
      let transport = InProcessTransport()
      let result = try await withGRPCServer(
        transport: transport.server, services: prepared.services,
        interceptors: try await TestIdentity.serverInterceptors()
      ) { _ in
        try await withGRPCClient(transport: transport.client, interceptors: [ContextUserTokenInterceptor()]) {
          grpcClient in
          try await body(grpcClient, prepared, store)
        }
      }
      try await opened.dispose()
      return result
    } catch {
      try? await opened.dispose()
      throw error
    }
  }
}

/// Unique SQLite paths under the temporary directory.
package enum TemporaryDatabase {
  package static func path(named name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("intentmesh-\(name)-\(UUID().uuidString).sqlite").path
  }

  package static func remove(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
  }
}
