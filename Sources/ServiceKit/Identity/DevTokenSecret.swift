#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif
internal import Crypto
internal import IntentMeshCore

/// What makes a development token the starter's: a random secret `intentmesh up` makes anew for
/// every run in the local identity's folder (mode 0600, in a folder of mode 0700) and prints as part
/// of the web app's address (`http://127.0.0.1:50060/#dev=<secret>`: a fragment, never sent to a
/// server, kept by the page). The gateway's `POST /dev/token` answers only a request that carries
/// it, so a request through a forwarder (`ssh -L`, `socat`, `kubectl port-forward`, a proxy) or from
/// another local user, who cannot read the folder, gets no token.
package enum DevTokenSecret {
  package static let fileName = "dev-token-secret"
  /// The request header the page sends it in.
  package static let header = "x-intentmesh-dev-secret"

  /// A new secret in `directory`, replacing the last run's (whose pages then ask again).
  package static func renew(in directory: URL) throws -> String {
    try FileManager.default.createDirectory(
      at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    let secret = make()
    try KeyFile.replace(directory.appendingPathComponent(fileName).path, contents: secret + "\n")
    return secret
  }

  /// The secret in `directory`, made there when there is none yet.
  package static func loadOrCreate(in directory: URL) throws -> String {
    let file = directory.appendingPathComponent(fileName)
    if !FileManager.default.fileExists(atPath: file.path) {
      try FileManager.default.createDirectory(
        at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      try KeyFile.createExclusively(file.path, contents: make() + "\n")
    }
    let secret = try String(contentsOf: file, encoding: .utf8).trimmingWhitespace()
    guard secret.utf8.count >= 32 else { throw KeySetError.unreadable("\(file.path) holds no secret") }
    return secret
  }

  /// The web app's address with the secret for the page.
  package static func webAddress(_ base: String, secret: String) -> String { "\(base)#dev=\(secret)" }

  /// Whether `presented` is `secret`, compared in time that does not depend on where they differ.
  package static func matches(_ presented: String?, _ secret: String) -> Bool {
    guard let presented else { return false }
    let (given, wanted) = (Array(presented.utf8), Array(secret.utf8))
    guard given.count == wanted.count, !wanted.isEmpty else { return false }
    var difference: UInt8 = 0
    for index in wanted.indices { difference |= given[index] ^ wanted[index] }
    return difference == 0
  }

  /// 256 random bits, base64url.
  static func make() -> String {
    Base64URL.encoded(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
  }
}
