package import GRPCNIOTransportHTTP2
package import NIOSSL

/// TLS towards a server: the CA certificates its certificate must chain to (PEM; nil: the system's
/// roots), the hostname checked against the certificate (the one dialled), and, for mutual TLS, the
/// client certificate and key presented.
package struct ClientTLS: Sendable, Equatable {
  package var trustRoots: String?
  package var certificateChain: String?
  package var privateKey: String?

  package init(trustRoots: String?, certificateChain: String? = nil, privateKey: String? = nil) {
    self.trustRoots = trustRoots
    self.certificateChain = certificateChain
    self.privateKey = privateKey
  }

  /// The gRPC client transport's security.
  package var transportSecurity: HTTP2ClientTransport.Posix.TransportSecurity {
    let configure: (inout HTTP2ClientTransport.Posix.TransportSecurity.TLS) -> Void = { config in
      if let trustRoots { config.trustRoots = .certificates([.file(path: trustRoots, format: .pem)]) }
    }
    if let certificateChain, let privateKey {
      return .mTLS(
        certificateChain: [.file(path: certificateChain, format: .pem)],
        privateKey: .file(path: privateKey, format: .pem), configure: configure)
    }
    return .tls(configure: configure)
  }

  /// A NIOSSL context for a hand-written HTTP/2 client (the relay's upstream connections): ALPN h2,
  /// full verification.
  package func makeContext() throws -> NIOSSLContext {
    var configuration = TLSConfiguration.makeClientConfiguration()
    configuration.minimumTLSVersion = .tlsv12
    configuration.applicationProtocols = ["h2"]
    if let trustRoots { configuration.trustRoots = .file(trustRoots) }
    if let certificateChain, let privateKey {
      configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certificateChain).map { .certificate($0) }
      configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: privateKey, format: .pem))
    }
    return try NIOSSLContext(configuration: configuration)
  }
}
