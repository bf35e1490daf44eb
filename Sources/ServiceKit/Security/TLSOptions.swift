package import ArgumentParser

/// The flags of a listening port's TLS. A flag wins over its environment variable; none: plain h2c.
package struct TLSOptions: ParsableArguments {
  @Option(help: "PEM certificate chain to serve TLS with (env INTENTMESH_TLS_CERT); without it: plain h2c.")
  var tlsCert: String?

  @Option(help: "PEM private key of --tls-cert (env INTENTMESH_TLS_KEY).")
  var tlsKey: String?

  @Option(
    help:
      "PEM CA whose client certificates are the only ones accepted: mutual TLS (env INTENTMESH_TLS_CLIENT_CA).")
  var tlsClientCA: String?

  package init() {}

  func serverTLS(environment: [String: String]) throws -> ServerTLS? {
    let lookup = OptionLookup(environment)
    let cert = lookup.string(tlsCert, "INTENTMESH_TLS_CERT")
    let key = lookup.string(tlsKey, "INTENTMESH_TLS_KEY")
    let clientCA = lookup.string(tlsClientCA, "INTENTMESH_TLS_CLIENT_CA")
    switch (cert, key) {
    case (nil, nil):
      guard clientCA == nil else { throw ValidationError("--tls-client-ca needs --tls-cert and --tls-key") }
      return nil
    case (let cert?, let key?):
      return ServerTLS(certificateChain: cert, privateKey: key, clientCA: clientCA)
    default:
      throw ValidationError("TLS needs both --tls-cert and --tls-key")
    }
  }
}
