import GRPCCore
import GRPCNIOTransportHTTP2
import IntentsKitTesting

/// A gRPC client to a service under test on this machine.
enum Loopback {
  static func withClient<T: Sendable>(
    port: Int, _ body: (GRPCClient<HTTP2ClientTransport.Posix>) async throws -> T
  ) async throws -> T {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) {
      try await body($0)
    }
  }
}
