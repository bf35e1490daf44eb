internal import SwiftProtobuf
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import IntentMeshProtos
internal import ServiceKit

/// A gateway's client of one domain replica: one HTTP/2 connection that reconnects with backoff,
/// and the generated clients over it. Retired when the replica leaves the domain list: calls in
/// flight finish, no new one is made.
final class DomainConnection: Sendable {
  let endpoint: DomainEndpoint
  let client: GRPCClient<HTTP2ClientTransport.Posix>
  let extensionClient: Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix>
  let healthClient: Grpc_Health_V1_Health.Client<HTTP2ClientTransport.Posix>
  private let retirement = AsyncStream.makeStream(of: Never.self)

  init(endpoint: DomainEndpoint, tls: ClientTLS? = nil) throws {
    self.endpoint = endpoint
    var config = HTTP2ClientTransport.Posix.Config.defaults
    config.backoff.initial = .milliseconds(100)
    config.backoff.max = .seconds(2)
    config.connection.maxIdleTime = nil
    // A domain's answer passes through whatever its size (up to the transport cap the services
    // use): grpc-swift's client otherwise refuses messages over 4 MiB.
    let cap = ServiceTransport.transportCap(for: 0)
    let serviceConfig = ServiceConfig(methodConfig: [
      MethodConfig(names: [.init(service: "")], maxRequestMessageBytes: cap, maxResponseMessageBytes: cap)
    ])
    let transport = try HTTP2ClientTransport.Posix(
      target: endpoint.target,
      transportSecurity: tls?.transportSecurity ?? .plaintext,
      config: config,
      resolverRegistry: DomainEndpoint.resolverRegistry,
      serviceConfig: serviceConfig
    )
    // The call's trace (a gateway RPC answered by its own server) goes on to the domain.
    self.client = GRPCClient(transport: transport, interceptors: [TracingClientInterceptor()])
    self.extensionClient = Intentmesh_V1_IntentsExtension.Client(wrapping: client)
    self.healthClient = Grpc_Health_V1_Health.Client(wrapping: client)
  }

  /// Maintains the connection until `shutdown()`.
  func run() async throws {
    try await client.runConnections()
  }

  func shutdown() {
    client.beginGracefulShutdown()
  }

  /// Marks the replica as gone from the domain list: `untilRetired()` returns.
  func retire() {
    retirement.continuation.finish()
  }

  /// Returns once `retire()` was called, or when the task is cancelled.
  func untilRetired() async {
    for await _ in retirement.stream {}
  }
}
