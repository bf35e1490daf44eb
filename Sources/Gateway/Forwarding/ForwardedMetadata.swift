internal import IntentMeshProtos
internal import SwiftProtobuf
internal import GRPCCore
internal import ServiceKit

/// Which request metadata travels from the client to the domain: everything the application set
/// (request id, trace context, custom keys), nothing that belongs to the transport.
enum ForwardedMetadata {
  /// The request's own HTTP headers, which belong to its hop: a `content-length` carried on would
  /// describe another body (the domain's server resets a stream whose body is not that long).
  static let transportKeys: Set<String> = [
    "content-type", "te", "user-agent", "host", "accept-encoding", "content-length", "connection", "keep-alive",
    "proxy-connection", "transfer-encoding", "upgrade",
  ]

  static func forward(_ metadata: Metadata, requestID: String? = RequestID.current) -> Metadata {
    var forwarded = Metadata()
    for (key, value) in metadata {
      let lower = key.lowercased()
      if lower.hasPrefix(":") || transportKeys.contains(lower) { continue }
      // gRPC's own keys belong to each hop, except the error details a domain attached.
      if lower.hasPrefix("grpc-") && lower != "grpc-status-details-bin" { continue }
      if lower == RequestID.metadataKey { continue }
      switch value {
      case .string(let text): forwarded.addString(text, forKey: key)
      case .binary(let bytes): forwarded.addBinary(bytes, forKey: key)
      }
    }
    if let requestID { forwarded.addString(requestID, forKey: RequestID.metadataKey) }
    return forwarded
  }
}
