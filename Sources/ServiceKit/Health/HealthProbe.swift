internal import IntentMeshProtos
internal import SwiftProtobuf
internal import GRPCCore
internal import GRPCNIOTransportHTTP2

/// `--health-check`: asks a running service on this machine for its grpc.health.v1 status and turns
/// the answer into an exit status (0 SERVING, 1 anything else or no answer) — what a container
/// health check runs, with no other tool in the image.
package enum HealthProbe {
  /// The status code for the process: 0 when the server at `port` reports SERVING within `timeout`.
  /// With `tls`, the probe speaks TLS to its own port: it does not check the certificate (it dials
  /// itself on loopback) and, under mutual TLS, presents the service's own certificate.
  package static func exitStatus(
    port: Int, service: String = "", tls: ServerTLS? = nil, timeout: Duration = .seconds(3)
  ) async -> Int32 {
    do {
      let security: HTTP2ClientTransport.Posix.TransportSecurity =
        tls.map { tls in
          let trustAnyServer: (inout HTTP2ClientTransport.Posix.TransportSecurity.TLS) -> Void = {
            $0.serverCertificateVerification = .noVerification
          }
          return tls.clientCA == nil
            ? .tls(configure: trustAnyServer)
            : .mTLS(
              certificateChain: [.file(path: tls.certificateChain, format: .pem)],
              privateKey: .file(path: tls.privateKey, format: .pem), configure: trustAnyServer)
        } ?? .plaintext
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: security)
      let status = try await withGRPCClient(transport: transport) { client in
        var options = CallOptions.defaults
        options.timeout = timeout
        return try await Grpc_Health_V1_Health.Client(wrapping: client).check(
          .with { $0.service = service }, options: options
        ).status
      }
      ProcessOutput.standardError("health: \(status)")
      return status == .serving ? 0 : 1
    } catch {
      ProcessOutput.standardError("health: no answer on port \(port): \(error)")
      return 1
    }
  }
}
