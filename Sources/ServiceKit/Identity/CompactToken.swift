#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif

/// A JWS in compact serialization, split and its JOSE header read; nothing verified yet.
struct CompactToken: Sendable {
  struct Header: Decodable {
    let alg: String?
    let kid: String?
    let crit: [String]?
  }

  let algorithm: SigningAlgorithm
  let keyID: String?

  init(_ token: Substring) throws(TokenRejection) {
    let parts = token.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
      throw .malformed("a JWT has three base64url parts separated by dots")
    }
    guard let bytes = Base64URL.decoded(parts[0]), let header = try? JSONDecoder().decode(Header.self, from: bytes)
    else {
      throw .malformed("the JOSE header is not base64url JSON")
    }
    guard let alg = header.alg else { throw .malformed("the JOSE header has no alg") }
    algorithm = try SigningAlgorithm(header: alg)
    if let critical = header.crit, !critical.isEmpty {
      throw .malformed("critical header parameters \(critical.prefix(4).map(TokenRejection.shown)) are not understood")
    }
    guard !parts[2].isEmpty else { throw .badSignature }
    keyID = header.kid
  }
}
