package import GRPCNIOTransportHTTP2
package import NIOSSL

/// TLS on a listening port: the certificate chain and key it presents (PEM files), ALPN h2, and,
/// when `clientCA` is set, mutual TLS: only clients with a certificate that CA signed get a connection.
package struct ServerTLS: Sendable, Equatable {
  package var certificateChain: String
  package var privateKey: String
  /// CA certificates (PEM) that sign the client certificates accepted; nil accepts any client.
  var clientCA: String?

  package init(certificateChain: String, privateKey: String, clientCA: String? = nil) {
    self.certificateChain = certificateChain
    self.privateKey = privateKey
    self.clientCA = clientCA
  }

  /// The gRPC server transport's security.
  package var transportSecurity: HTTP2ServerTransport.Posix.TransportSecurity {
    let chain: [TLSConfig.CertificateSource] = [.file(path: certificateChain, format: .pem)]
    let key: TLSConfig.PrivateKeySource = .file(path: privateKey, format: .pem)
    guard let clientCA else { return .tls(certificateChain: chain, privateKey: key) }
    return .mTLS(certificateChain: chain, privateKey: key) { config in
      config.trustRoots = .certificates([.file(path: clientCA, format: .pem)])
      config.clientCertificateVerification = .noHostnameVerification
    }
  }

  /// A NIOSSL context for a hand-written HTTP/2 server (the relay): same files, ALPN h2.
  package func makeContext() throws -> NIOSSLContext {
    var configuration = TLSConfiguration.makeServerConfiguration(
      certificateChain: try NIOSSLCertificate.fromPEMFile(certificateChain).map { .certificate($0) },
      privateKey: .privateKey(try NIOSSLPrivateKey(file: privateKey, format: .pem)))
    configuration.minimumTLSVersion = .tlsv12
    configuration.applicationProtocols = ["h2"]
    if let clientCA {
      configuration.trustRoots = .file(clientCA)
      configuration.certificateVerification = .noHostnameVerification
    }
    return try NIOSSLContext(configuration: configuration)
  }
}
