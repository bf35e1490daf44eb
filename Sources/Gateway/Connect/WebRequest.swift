/// One HTTP request the gateway's web side answers (Connect, gRPC-Web, CORS preflight), whole:
/// the transport (HTTP/1.1 on the public port, or an HTTP/2 stream the relay hands over) has
/// read its body.
struct WebRequest: Sendable {
  var method: String
  /// The path without the query.
  var path: String
  /// The path with its query, as the request line gave it.
  var target: String
  /// Header names lowercased, in the order they came.
  var headers: [(String, String)]
  var body: [UInt8]

  init(method: String, uri: String, headers: [(String, String)], body: [UInt8] = []) {
    self.method = method
    self.path = String(uri.prefix { $0 != "?" })
    self.target = uri
    self.headers = headers.map { ($0.0.lowercased(), $0.1) }
    self.body = body
  }

  /// The first value of header `name` (lowercase).
  func header(_ name: String) -> String? { headers.first { $0.0 == name }?.1 }
}
