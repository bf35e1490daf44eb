internal import NIOCore
package import GRPCNIOTransportHTTP2

extension String {
  /// Whether this is an IPv4 or IPv6 literal rather than a name.
  var isIPAddress: Bool {
    (try? SocketAddress(ipAddress: self, port: 0)) != nil
  }
}

extension DomainEndpoint {
  /// How grpc-swift dials the endpoint: an IP literal as an address (so TLS checks the certificate's
  /// IP addresses and sends no SNI, where an IP is not allowed), a name through DNS (sent as SNI).
  package var target: any ResolvableTarget {
    switch try? SocketAddress(ipAddress: host, port: port) {
    case .v4?: .ipv4(address: host, port: port)
    case .v6?: .ipv6(address: host, port: port)
    default: .dns(host: host, port: port)
    }
  }
}
