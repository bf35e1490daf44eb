package import Foundation
internal import Crypto
internal import SwiftASN1
internal import X509

/// Certificates made at test time: a CA, a server certificate for localhost and 127.0.0.1, a client
/// certificate it signed, and a client certificate of another CA (one a server must refuse), each
/// written as PEM files in a temporary folder.
package struct TestCertificates: Sendable {
  package let directory: URL
  package var caCertificate: String { path("ca.pem") }
  package var serverCertificate: String { path("server.pem") }
  package var serverKey: String { path("server-key.pem") }
  package var clientCertificate: String { path("client.pem") }
  package var clientKey: String { path("client-key.pem") }
  package var strangerCertificate: String { path("stranger.pem") }
  package var strangerKey: String { path("stranger-key.pem") }

  private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// Fresh certificates, valid from an hour ago for a day.
  package static func make() throws -> TestCertificates {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("intentmesh-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let made = TestCertificates(directory: directory)
    let (caKey, caName, ca) = try authority("IntentMesh Test CA")
    try made.write(ca, to: "ca.pem")
    let server = try leaf("localhost", signedBy: caKey, issuer: caName, serverName: true)
    try made.write(server.certificate, to: "server.pem")
    try made.write(server.key, to: "server-key.pem")
    let client = try leaf("gateway", signedBy: caKey, issuer: caName, serverName: false)
    try made.write(client.certificate, to: "client.pem")
    try made.write(client.key, to: "client-key.pem")
    let (otherKey, otherName, _) = try authority("Someone Else's CA")
    let stranger = try leaf("stranger", signedBy: otherKey, issuer: otherName, serverName: false)
    try made.write(stranger.certificate, to: "stranger.pem")
    try made.write(stranger.key, to: "stranger-key.pem")
    return made
  }

  package func remove() { try? FileManager.default.removeItem(at: directory) }

  private func write(_ certificate: Certificate, to name: String) throws {
    try Data(certificate.serializeAsPEM().pemString.utf8).write(to: directory.appendingPathComponent(name))
  }

  private func write(_ key: P256.Signing.PrivateKey, to name: String) throws {
    try Data(key.pemRepresentation.utf8).write(to: directory.appendingPathComponent(name))
  }

  private static let validity = (Date().addingTimeInterval(-3600), Date().addingTimeInterval(86_400))

  private static func authority(_ name: String) throws -> (P256.Signing.PrivateKey, DistinguishedName, Certificate) {
    let key = P256.Signing.PrivateKey()
    let subject = try DistinguishedName { CommonName(name) }
    let certificate = try Certificate(
      version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: validity.0,
      notValidAfter: validity.1, issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
        Critical(KeyUsage(keyCertSign: true, cRLSign: true))
      },
      issuerPrivateKey: .init(key))
    return (key, subject, certificate)
  }

  private static func leaf(
    _ name: String, signedBy issuerKey: P256.Signing.PrivateKey, issuer: DistinguishedName, serverName: Bool
  ) throws -> (certificate: Certificate, key: P256.Signing.PrivateKey) {
    let key = P256.Signing.PrivateKey()
    let certificate = try Certificate(
      version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: validity.0,
      notValidAfter: validity.1, issuer: issuer, subject: try DistinguishedName { CommonName(name) },
      signatureAlgorithm: .ecdsaWithSHA256,
      extensions: try Certificate.Extensions {
        Critical(BasicConstraints.notCertificateAuthority)
        Critical(KeyUsage(digitalSignature: true))
        try ExtendedKeyUsage([.serverAuth, .clientAuth])
        if serverName {
          SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
        }
      },
      issuerPrivateKey: .init(issuerKey))
    return (certificate, key)
  }
}
