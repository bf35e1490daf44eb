package import GRPCCore

/// The token of an `authorization: Bearer <token>` header, as RFC 6750 §2.1 writes it.
package enum BearerCredential {
  package static let metadataKey = "authorization"

  /// The token in `metadata`; `TokenRejection.missing` or `.malformed` when there is none.
  package static func token(in metadata: Metadata) throws(TokenRejection) -> Substring {
    var values = metadata[stringValues: metadataKey].makeIterator()
    guard let header = values.next() else { throw .missing }
    guard values.next() == nil else { throw .malformed("more than one authorization header") }
    return try token(inHeader: header)
  }

  /// The token of one header value.
  package static func token(inHeader header: String) throws(TokenRejection) -> Substring {
    let scheme = "bearer "
    guard header.utf8.count > scheme.utf8.count,
      header.utf8.prefix(scheme.utf8.count).elementsEqual(scheme.utf8, by: { lowered($0) == $1 })
    else {
      throw .malformed("the authorization scheme must be Bearer")
    }
    let token = header.dropFirst(scheme.count).drop(while: { $0 == " " })
    guard !token.isEmpty else { throw .malformed("the bearer token is empty") }
    return token
  }

  private static func lowered(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
  }
}
