internal import NIOCore
internal import NIOPosix
#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
#if canImport(Glibc)
  internal import Glibc
#elseif canImport(Musl)
  internal import Musl
#endif

/// Finds the addresses a domain's configured name stands for (every replica behind a Kubernetes
/// headless Service, say).
protocol AddressResolver: Sendable {
  /// Every IPv4 and IPv6 address of `name`, as literals, in the resolver's order, without repeats.
  func addresses(of name: String) async throws -> [String]
}

/// Why a name has no addresses.
struct AddressLookupError: Error, CustomStringConvertible {
  var name: String
  var reason: String
  var description: String { "\(name) does not resolve: \(reason)" }
}

/// The system's resolver (`getaddrinfo`: /etc/hosts, then DNS as /etc/resolv.conf says, A and
/// AAAA), called on NIO's blocking-work thread pool.
struct SystemAddressResolver: AddressResolver {
  init() {}

  func addresses(of name: String) async throws -> [String] {
    try await NIOThreadPool.singleton.runIfActive { try Self.lookUp(name) }
  }

  static func lookUp(_ name: String) throws -> [String] {
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
      hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
      hints.ai_socktype = SOCK_STREAM
    #endif
    var result: UnsafeMutablePointer<addrinfo>?
    let code = getaddrinfo(name, nil, &hints, &result)
    guard code == 0 else {
      throw AddressLookupError(name: name, reason: String(cString: gai_strerror(code)))
    }
    defer { freeaddrinfo(result) }
    var found: [String] = []
    var cursor = result
    while let info = cursor?.pointee {
      if let address = info.ai_addr, let text = Self.literal(address, family: info.ai_family), !found.contains(text) {
        found.append(text)
      }
      cursor = info.ai_next
    }
    return found
  }

  private static func literal(_ address: UnsafeMutablePointer<sockaddr>, family: Int32) -> String? {
    switch family {
    case AF_INET:
      address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: "").ipAddress }
    case AF_INET6:
      address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: "").ipAddress }
    default:
      nil
    }
  }
}

/// Names from a hosts-format file (`address name [name …]` per line, `#` comments), read again at
/// every lookup; a name the file does not list is asked of `fallback`. For setups without DNS, and
/// for tests that move replicas while load runs.
struct HostsFileResolver: AddressResolver {
  var path: String
  var fallback: any AddressResolver

  init(path: String, fallback: any AddressResolver = SystemAddressResolver()) {
    self.path = path
    self.fallback = fallback
  }

  func addresses(of name: String) async throws -> [String] {
    let text: String
    do {
      text = try String(contentsOfFile: path, encoding: .utf8)
    } catch {
      throw AddressLookupError(name: name, reason: "cannot read the hosts file \(path): \(error)")
    }
    if let listed = HostsFile(text).addresses[name.lowercased()], !listed.isEmpty { return listed }
    return try await fallback.addresses(of: name)
  }
}
