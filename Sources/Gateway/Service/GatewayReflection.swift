internal import SwiftProtobuf
internal import ProtoJSON
internal import ServiceKit
internal import Synchronization

/// The gateway's server reflection: its own contract (the envelope, its API, health, reflection,
/// error details) from the descriptor set it was built with, plus whatever its domains' reflection
/// serves for their manifests — so that `grpcurl` through the gateway describes a domain's types,
/// a domain in another language or an intent added after the gateway was built included. Rebuilt
/// only when a domain's files change.
final class GatewayReflection: Sendable {
  private let directory: DomainDirectory
  private let base: ReflectionIndex
  private let baseFiles: [Google_Protobuf_FileDescriptorProto]
  private let current: Mutex<(changes: Int, index: ReflectionIndex)>
  private let currentSchema: Mutex<(changes: Int, schema: ProtoSchema)?> = Mutex(nil)

  /// The files the gateway itself answers for: everything but the domains' own packages.
  static func isGatewayFile(_ name: String) -> Bool {
    !name.hasPrefix("intentmesh/") || name.hasPrefix("intentmesh/v1/") || name.hasPrefix("intentmesh/gateway/")
  }

  init(directory: DomainDirectory, services: [String], relayed: @escaping @Sendable () -> [String]) throws {
    self.directory = directory
    baseFiles = try ReflectionIndex.embeddedFiles(including: Self.isGatewayFile)
    base = try ReflectionIndex(
      files: baseFiles, services: services + ReflectionService.serviceNames, relayed: relayed)
    current = Mutex((-1, base))
  }

  /// The index to answer from now.
  func index() -> ReflectionIndex {
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

  /// The messages and methods of the same files: what the gateway's Connect JSON reads and writes
  /// by. A domain's own files replace the gateway's copy, as in the index.
  func schema() -> ProtoSchema {
    let (changes, domains) = directory.descriptors
    if let schema = currentSchema.withLock({ $0?.changes == changes ? $0?.schema : nil }) { return schema }
    var schema = ProtoSchema(files: baseFiles)
    for domain in domains { schema.add(domain.files) }
    currentSchema.withLock { $0 = (changes, schema) }
    return schema
  }
}
