internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import IntentMeshProtos
internal import ServiceKit
internal import SwiftProtobuf

/// The protobuf files a domain serves over reflection for what its manifest declares — its payload
/// and response types and its app services, with what they import — so that the gateway's own
/// reflection describes a domain's types (grpcurl through the gateway) without being built with
/// them: a new intent or a new domain, in any language, is visible as soon as it is described.
struct DomainDescriptors: Sendable, Equatable {
  /// Every file received, each once.
  var files: [Google_Protobuf_FileDescriptorProto] = []
  /// The files that define the declared symbols: the domain's own, which win over an older copy.
  var own: Set<String> = []

  init(files: [Google_Protobuf_FileDescriptorProto] = [], own: Set<String> = []) {
    self.files = files
    self.own = own
  }

  /// What to ask for: each declared payload, response and app service once, well-known types aside.
  static func symbols(of manifest: Intentmesh_V1_ExtensionManifest) -> [String] {
    var seen = Set<String>()
    let all = manifest.intents.flatMap { [$0.payloadType, $0.responseType] } + manifest.appServices
    return all.filter { !$0.isEmpty && !$0.hasPrefix("google.protobuf.") && seen.insert($0).inserted }
  }

  /// Asks the domain's grpc.reflection.v1 for the file of each symbol, on one stream. A symbol it
  /// does not know is left out (its types are then not described through the gateway).
  static func fetch(
    for manifest: Intentmesh_V1_ExtensionManifest, over client: GRPCClient<HTTP2ClientTransport.Posix>
  ) async throws -> DomainDescriptors {
    var descriptors = DomainDescriptors()
    var names = Set<String>()
    for answer in try await ReflectionFetch.files(defining: symbols(of: manifest), over: client) {
      // Reflection answers the file that defines the symbol first, then its imports.
      for (position, file) in answer.enumerated() {
        if position == 0 { descriptors.own.insert(file.name) }
        if names.insert(file.name).inserted { descriptors.files.append(file) }
      }
    }
    return descriptors
  }
}
