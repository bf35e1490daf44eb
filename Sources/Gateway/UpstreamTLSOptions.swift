internal import ArgumentParser
internal import ServiceKit

/// The flags of the gateway's TLS towards its domains. A flag wins over its environment variable;
/// none: h2c to the domains.
struct UpstreamTLSOptions: ParsableArguments {
  @Option(
    help:
      "PEM CA the domains' certificates must chain to; with it the gateway speaks TLS to every domain and checks the name or IP it dials (env INTENTMESH_TLS_CA)."
  )
  var tlsCA: String?

  @Option(help: "PEM client certificate the gateway presents to domains: mutual TLS (env INTENTMESH_TLS_CLIENT_CERT).")
  var tlsClientCert: String?

  @Option(help: "PEM private key of --tls-client-cert (env INTENTMESH_TLS_CLIENT_KEY).")
  var tlsClientKey: String?

  init() {}

  func clientTLS(environment: [String: String]) throws -> ClientTLS? {
    let lookup = OptionLookup(environment)
    let ca = lookup.string(tlsCA, "INTENTMESH_TLS_CA")
    let cert = lookup.string(tlsClientCert, "INTENTMESH_TLS_CLIENT_CERT")
    let key = lookup.string(tlsClientKey, "INTENTMESH_TLS_CLIENT_KEY")
    guard (cert == nil) == (key == nil) else {
      throw ValidationError("mutual TLS needs both --tls-client-cert and --tls-client-key")
    }
    guard let ca else {
      guard cert == nil else { throw ValidationError("--tls-client-cert needs --tls-ca (TLS towards the domains)") }
      return nil
    }
    return ClientTLS(trustRoots: ca, certificateChain: cert, privateKey: key)
  }
}
