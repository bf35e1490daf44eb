internal import NIOSSL
internal import PostgresNIO

/// PostgresNIO's TLS for a `sslmode`, as libpq reads it: `prefer` encrypts when the server offers
/// TLS and may fall back to plaintext (an attacker on the path can make it), `require` refuses a
/// connection without TLS; neither checks the certificate (encryption only, as libpq). The
/// `verify-` modes check it against the given CA (or the system's), `verify-full` its name against
/// the host too: only they stop a server in the middle.
struct PostgresTLS {
  /// nil: no TLS.
  let configuration: TLSConfiguration?
  let required: Bool

  init(_ mode: StoreLocation.TLSMode) throws {
    required = mode.isRequired
    switch mode {
    case .disable:
      configuration = nil
    case .prefer, .require:
      var tls = TLSConfiguration.makeClientConfiguration()
      tls.certificateVerification = .none
      configuration = tls
    case .verifyCA(let root), .verifyFull(let root):
      var tls = TLSConfiguration.makeClientConfiguration()
      if case .verifyCA = mode {
        tls.certificateVerification = .noHostnameVerification
      } else {
        tls.certificateVerification = .fullVerification
      }
      if let root {
        do {
          tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(root))
        } catch {
          throw StoreLocationError("sslrootcert \(root): not a readable PEM certificate file (\(error))")
        }
      }
      configuration = tls
    }
  }

  /// For the pool of connections.
  var client: PostgresClient.Configuration.TLS {
    guard let configuration else { return .disable }
    return required ? .require(configuration) : .prefer(configuration)
  }

  /// For one connection.
  func connection() throws -> PostgresConnection.Configuration.TLS {
    guard let configuration else { return .disable }
    let context = try NIOSSLContext(configuration: configuration)
    return required ? .require(context) : .prefer(context)
  }
}
