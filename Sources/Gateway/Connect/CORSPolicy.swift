internal import ServiceKit
internal import IntentMeshCore

/// Which web origins may call the gateway from a page served elsewhere (the gateway's own page is
/// same-origin and needs none), and the CORS headers that say so. An origin not configured gets
/// no CORS headers: the browser then keeps the answer from the page.
struct CORSPolicy: Sendable, Equatable {
  /// Exact origins (`https://app.example.com`), or `*` for any.
  let origins: Set<String>

  init(origins: [String] = []) {
    self.origins = Set(origins.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
  }

  /// Request headers a Connect, gRPC-Web or IntentMesh client sends.
  static let allowedHeaders = [
    "authorization", "content-type", "connect-protocol-version", "connect-timeout-ms", "grpc-timeout",
    "x-grpc-web", "x-user-agent", "x-request-id",
  ]
  /// Response headers a page may read.
  static let exposedHeaders = ["grpc-status", "grpc-message", "grpc-status-details-bin", "x-request-id"]

  func allows(_ origin: String) -> Bool { origins.contains("*") || origins.contains(origin) }

  /// Headers for an answer to a request from `origin` (nil: not a cross-origin request).
  func responseHeaders(origin: String?) -> [(String, String)] {
    guard let origin, allows(origin) else { return [] }
    return [
      ("access-control-allow-origin", origins.contains("*") ? "*" : origin), ("vary", "Origin"),
      ("access-control-expose-headers", Self.exposedHeaders.joined(separator: ", ")),
    ]
  }

  /// The answer to a preflight (`OPTIONS` with `Access-Control-Request-Method`): the headers of a
  /// 204, or nil when the origin, method or a header is not allowed.
  func preflight(origin: String?, method: String?, headers: String?) -> [(String, String)]? {
    guard let origin, allows(origin), let method, ["POST", "GET"].contains(method.uppercased()) else { return nil }
    let asked = (headers ?? "").split(separator: ",").map { $0.trimmingWhitespace().lowercased() }.filter {
      !$0.isEmpty
    }
    // Custom metadata (any other header) is allowed too: a client may send its own; the gateway
    // forwards it as gRPC metadata. Connect's and gRPC's reserved headers are refused.
    guard asked.allSatisfy({ !Self.reserved($0) }) else { return nil }
    return [
      ("access-control-allow-origin", origins.contains("*") ? "*" : origin), ("vary", "Origin"),
      ("access-control-allow-methods", "POST, GET"),
      (
        "access-control-allow-headers",
        (Self.allowedHeaders + asked.filter { !Self.allowedHeaders.contains($0) })
          .joined(separator: ", ")
      ),
      ("access-control-max-age", "7200"),
    ]
  }

  /// Headers a page may not set (hop-by-hop, or owned by the transport).
  static func reserved(_ name: String) -> Bool {
    ["connection", "te", "host", "content-length", "transfer-encoding", "upgrade", "keep-alive"].contains(name)
      || name.hasPrefix(":")
  }
}
