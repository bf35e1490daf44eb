internal import SwiftProtobuf
package import ServiceKit
internal import Synchronization

/// The gateway's server reflection: its own contract (the envelope, its API, health, reflection,
/// error details) from the descriptor set it was built with, plus whatever its domains' reflection
/// serves for their manifests — so that `grpcurl` through the gateway describes a domain's types,
/// a domain in another language or an intent added after the gateway was built included. Rebuilt
/// only when a domain's files change.
package final class GatewayReflection: Sendable {
  private let directory: DomainDirectory
  private let base: ReflectionIndex
  private let current: Mutex<(changes: Int, index: ReflectionIndex)>

  /// The files the gateway itself answers for: everything but the domains' own packages.
  static func isGatewayFile(_ name: String) -> Bool {
    !name.hasPrefix("intentmesh/") || name.hasPrefix("intentmesh/v1/") || name.hasPrefix("intentmesh/gateway/")
  }

  package init(directory: DomainDirectory, services: [String], relayed: @escaping @Sendable () -> [String]) throws {
    self.directory = directory
    base = try ReflectionIndex.embedded(
      services: services + ReflectionService.serviceNames, relayed: relayed, including: Self.isGatewayFile)
    current = Mutex((-1, base))
  }

  /// The index to answer from now.
  package func index() -> ReflectionIndex {
    let (changes, domains) = directory.descriptors
    if let index = current.withLock({ $0.changes == changes ? $0.index : nil }) { return index }
    var index = base
    for domain in domains {
      // A domain's own files replace an older copy; files it imports are added when missing.
      index = (try? index.merging(domain.files, replacing: domain.own)) ?? index
    }
    current.withLock { $0 = (changes, index) }
    return index
  }
}
