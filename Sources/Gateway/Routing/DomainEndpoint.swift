internal import IntentMeshProtos
internal import SwiftProtobuf
internal import ServiceKit
internal import IntentMeshCore

/// Where a domain service listens: an address (or a name) and a port, and, for an address found by
/// resolving a configured name, that name (sent as TLS SNI, checked against the domain's
/// certificate and sent as the calls' `:authority`).
struct DomainEndpoint: Sendable, Hashable, CustomStringConvertible {
  var host: String
  var port: Int
  /// The configured name `host` was resolved from; nil when the host was configured as it is.
  var serverName: String?

  init(host: String, port: Int, serverName: String? = nil) {
    self.host = host
    self.port = port
    self.serverName = serverName
  }

  /// Parses "host:port", "[IPv6]:port" or a bare IPv6 address with a port ("::1:50061" is read as
  /// the last colon's port); nil when malformed.
  init?(_ text: String) {
    let trimmed = text.trimmingWhitespace()
    guard let colon = trimmed.lastIndex(of: ":"), let port = Int(trimmed[trimmed.index(after: colon)...]),
      (1...65535).contains(port), colon > trimmed.startIndex
    else { return nil }
    var host = trimmed[..<colon]
    if host.hasPrefix("[") {
      guard host.hasSuffix("]"), host.count > 2 else { return nil }
      host = host.dropFirst().dropLast()
    }
    guard !host.isEmpty, !host.contains(where: { $0 == " " || $0 == "/" || $0 == "[" || $0 == "]" }) else {
      return nil
    }
    self.host = String(host)
    self.port = port
    self.serverName = nil
  }

  /// "host:port" ("[::1]:50061" for IPv6); an address found by resolving a name adds the name:
  /// "10.0.3.7:50062 (payments.intentmesh.svc)".
  var description: String {
    let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    guard let serverName else { return address }
    return "\(address) (\(serverName))"
  }

  /// The name TLS sends and checks: the configured name, or the host when it is a name itself.
  var tlsName: String? {
    if let serverName { return serverName }
    return host.isIPAddress ? nil : host
  }
}
