internal import NIOCore
internal import GRPCNIOTransportHTTP2
internal import GRPCCore

extension String {
  /// Whether this is an IPv4 or IPv6 literal rather than a name.
  var isIPAddress: Bool {
    (try? SocketAddress(ipAddress: self, port: 0)) != nil
  }
}

extension DomainEndpoint {
  /// How grpc-swift dials the endpoint: an IP literal as an address (so TLS checks the certificate's
  /// IP addresses and sends no SNI, where an IP is not allowed), a name through DNS (sent as SNI),
  /// and an address resolved from a configured name as that address with the name as authority.
  var target: any ResolvableTarget {
    let address: GRPCNIOTransportCore.SocketAddress? =
      switch try? NIOCore.SocketAddress(ipAddress: host, port: port) {
      case .v4?: .ipv4(host: host, port: port)
      case .v6?: .ipv6(host: host, port: port)
      default: nil
      }
    guard let address else { return .dns(host: host, port: port) }
    if let serverName { return ResolvedAddressTarget(address: address, authority: "\(serverName):\(port)") }
    switch address.ipv4 {
    case .some: return .ipv4(address: host, port: port)
    case .none: return .ipv6(address: host, port: port)
    }
  }

  /// The resolvers a domain connection may need: grpc-swift's, and one for addresses resolved
  /// from a configured name.
  static var resolverRegistry: NameResolverRegistry {
    var registry = NameResolverRegistry.defaults
    registry.registerFactory(ResolvedAddressTarget.Factory())
    return registry
  }
}

/// One address the gateway found by resolving a configured name: grpc-swift dials the address and
/// uses the name as the authority (the `:authority` header and the TLS server name).
struct ResolvedAddressTarget: ResolvableTarget, Sendable {
  var address: GRPCNIOTransportCore.SocketAddress
  var authority: String

  /// Makes its constant resolver.
  struct Factory: NameResolverFactory, Sendable {
    func resolver(for target: ResolvedAddressTarget) -> NameResolver {
      let result = NameResolutionResult(endpoints: [Endpoint(addresses: [target.address])], serviceConfig: nil)
      return NameResolver(
        names: RPCAsyncSequence(wrapping: Always(element: result)), updateMode: .pull, authority: target.authority)
    }
  }

  /// The same result at every pull.
  struct Always: AsyncSequence, Sendable {
    typealias Failure = any Error
    let element: NameResolutionResult

    func makeAsyncIterator() -> Iterator { Iterator(element: element) }

    struct Iterator: AsyncIteratorProtocol {
      let element: NameResolutionResult
      func next() async throws -> NameResolutionResult? { element }
    }
  }
}
