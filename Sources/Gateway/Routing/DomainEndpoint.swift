internal import IntentMeshProtos
internal import SwiftProtobuf
internal import ServiceKit

/// Where a domain service listens.
package struct DomainEndpoint: Sendable, Hashable, CustomStringConvertible {
  package var host: String
  package var port: Int

  package init(host: String, port: Int) {
    self.host = host
    self.port = port
  }

  /// Parses "host:port" (IPv4 or a name); nil when malformed.
  package init?(_ text: String) {
    let trimmed = text.trimmingWhitespace()
    guard let colon = trimmed.lastIndex(of: ":"), let port = Int(trimmed[trimmed.index(after: colon)...]),
      (1...65535).contains(port), colon > trimmed.startIndex
    else { return nil }
    self.host = String(trimmed[..<colon])
    self.port = port
  }

  package var description: String { "\(host):\(port)" }
}
