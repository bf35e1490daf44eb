#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
package import JWTKit

/// The verification keys of a JWKS document (RFC 7517), by `kid`, as an OIDC provider publishes them.
/// Keys without a `kid`, for encryption (`use: enc`), private keys, and key types that cannot sign
/// tokens this service accepts are left out, each with its reason in `skipped`.
package struct VerificationKeySet: Sendable {
  /// What a JWK declares about itself, read before jwt-kit builds the key.
  struct KeyDescription: Decodable, Sendable {
    let kid: String?
    let kty: String?
    let alg: String?
    let crv: String?
    let use: String?
    let d: String?
  }

  /// One usable key.
  package struct Key: Sendable {
    let keyType: String
    let curve: String?
    /// The algorithm the JWK pins (`alg`), if any.
    let algorithm: String?
  }

  package let keys: [String: Key]
  package let skipped: [String]
  /// The document's bytes: a reload that reads the same ones changes nothing.
  package let document: [UInt8]
  /// The keys, for jwt-kit's signature check.
  let collection: JWTKeyCollection

  /// Parses a JWKS document; throws when it is not one or holds no usable key.
  package static func parse(_ json: [UInt8]) async throws -> VerificationKeySet {
    struct Document: Decodable { let keys: [Entry] }
    struct Entry: Decodable {
      let description: KeyDescription?
      let jwk: JWK?
      init(from decoder: any Decoder) throws {
        description = try? KeyDescription(from: decoder)
        jwk = try? JWK(from: decoder)
      }
    }
    let document: Document
    do {
      document = try JSONDecoder().decode(Document.self, from: Data(json))
    } catch {
      throw KeySetError.notAJWKS("not a JWKS document ({\"keys\": [...]})")
    }
    var keys: [String: Key] = [:]
    var skipped: [String] = []
    let collection = JWTKeyCollection()
    for (index, entry) in document.keys.enumerated() {
      guard let description = entry.description, let kid = description.kid, !kid.isEmpty else {
        skipped.append("key \(index): no kid")
        continue
      }
      guard description.use == nil || description.use == "sig" else {
        skipped.append("\(kid): use \(description.use ?? "")")
        continue
      }
      guard description.d == nil else {
        skipped.append("\(kid): a private key; publish only public keys")
        continue
      }
      guard let kty = description.kty,
        SigningAlgorithm.allCases.contains(where: { $0.fits(keyType: kty, curve: description.crv) }),
        let jwk = entry.jwk
      else {
        skipped.append(
          "\(kid): key type \(description.kty ?? "?") \(description.crv ?? "") cannot verify accepted tokens")
        continue
      }
      if let alg = description.alg, (try? SigningAlgorithm(header: alg)) == nil {
        skipped.append("\(kid): alg \(alg) is not accepted")
        continue
      }
      do {
        try await collection.add(jwk: jwk)
      } catch {
        skipped.append("\(kid): \(error)")
        continue
      }
      // An RSA key that names no alg is RS256's (RFC 7518's and OIDC's default): jwt-kit builds a key's
      // signer once, from the first token's alg, so letting tokens choose would let one bad token
      // choose for all that follow.
      keys[kid] = Key(
        keyType: kty, curve: description.crv, algorithm: description.alg ?? (kty == "RSA" ? "RS256" : nil))
    }
    guard !keys.isEmpty else {
      throw KeySetError.notAJWKS("no usable verification key (\(skipped.joined(separator: "; ")))")
    }
    return VerificationKeySet(keys: keys, skipped: skipped, document: json, collection: collection)
  }
}

/// A JWKS that cannot be used.
package enum KeySetError: Error, CustomStringConvertible {
  case notAJWKS(String)
  case unreadable(String)

  package var description: String {
    switch self {
    case .notAJWKS(let why), .unreadable(let why): why
    }
  }
}
