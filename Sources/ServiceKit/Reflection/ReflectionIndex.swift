#if canImport(FoundationEssentials)
  package import FoundationEssentials
#else
  package import Foundation
#endif
package import ReflectionProtos
package import SwiftProtobuf
import IntentMeshCore

/// What gRPC server reflection answers from: every file of a FileDescriptorSet by name, each
/// symbol (message, enum, service, method, extension) by its full name, and extensions by the
/// type they extend. Built from the embedded set (a gateway adds the files its domains serve,
/// `merging`); answers are pure lookups.
package struct ReflectionIndex: Sendable {
  /// Each file's serialized descriptor (what reflection answers with) and the files it imports; the
  /// parsed descriptors are not kept.
  private var serialized: [String: Data] = [:]
  private var dependencies: [String: [String]] = [:]
  private var fileOfSymbol: [String: String] = [:]
  private var fileOfExtension: [String: [Int32: String]] = [:]
  /// The services the server answers, by full name.
  package let services: [String]
  /// Services answered on the same port that come and go (a gateway's relayed app services).
  let relayed: @Sendable () -> [String]

  /// Indexes `descriptorSet` (a serialized google.protobuf.FileDescriptorSet) for a server
  /// offering `services`.
  package init(descriptorSet: Data, services: [String], relayed: @escaping @Sendable () -> [String] = { [] }) throws {
    try self.init(
      files: Google_Protobuf_FileDescriptorSet(serializedBytes: descriptorSet).file, services: services,
      relayed: relayed)
  }

  /// Indexes `files` for a server offering `services`.
  package init(
    files: [Google_Protobuf_FileDescriptorProto], services: [String],
    relayed: @escaping @Sendable () -> [String] = { [] }
  ) throws {
    self.services = services.sorted()
    self.relayed = relayed
    for file in files { try add(file) }
  }

  /// This index with `files` added: a file this index already holds is kept, unless its name is in
  /// `replacing` (a newer version of a domain's own file, say) — then the given one takes its place.
  package func merging(_ files: [Google_Protobuf_FileDescriptorProto], replacing: Set<String>) throws
    -> ReflectionIndex
  {
    var merged = self
    for file in files where merged.serialized[file.name] == nil || replacing.contains(file.name) {
      try merged.add(file)
    }
    return merged
  }

  /// Whether the index holds a file of this name.
  package func holds(file name: String) -> Bool { serialized[name] != nil }

  private mutating func add(_ file: Google_Protobuf_FileDescriptorProto) throws {
    serialized[file.name] = try file.serializedBytes()
    dependencies[file.name] = file.dependency
    let prefix = file.package.isEmpty ? "" : file.package + "."
    for message in file.messageType { index(message, prefix: prefix, file: file.name) }
    for enumeration in file.enumType { fileOfSymbol[prefix + enumeration.name] = file.name }
    for service in file.service {
      fileOfSymbol[prefix + service.name] = file.name
      for method in service.method { fileOfSymbol[prefix + service.name + "." + method.name] = file.name }
    }
    for field in file.extension { indexExtension(field, scope: prefix, file: file.name) }
  }

  /// The embedded descriptor set is not valid base64 (scripts/generate-protos writes it).
  struct EmbeddedSetUnreadable: Error {}

  /// The index of the descriptor set generated from Protos/: every file, or those `including` keeps.
  package static func embedded(
    services: [String], relayed: @escaping @Sendable () -> [String] = { [] },
    including: (String) -> Bool = { _ in true }
  ) throws -> ReflectionIndex {
    try ReflectionIndex(files: try embeddedFiles(including: including), services: services, relayed: relayed)
  }

  /// The files of the descriptor set generated from Protos/, those `including` keeps.
  package static func embeddedFiles(including: (String) -> Bool = { _ in true }) throws
    -> [Google_Protobuf_FileDescriptorProto]
  {
    guard let data = Data(base64Encoded: ReflectionDescriptorSet.base64, options: .ignoreUnknownCharacters) else {
      throw EmbeddedSetUnreadable()
    }
    return try Google_Protobuf_FileDescriptorSet(serializedBytes: data).file.filter { including($0.name) }
  }

  private mutating func index(_ message: Google_Protobuf_DescriptorProto, prefix: String, file: String) {
    let name = prefix + message.name
    fileOfSymbol[name] = file
    for nested in message.nestedType { index(nested, prefix: name + ".", file: file) }
    for enumeration in message.enumType { fileOfSymbol[name + "." + enumeration.name] = file }
    for field in message.extension { indexExtension(field, scope: name + ".", file: file) }
  }

  private mutating func indexExtension(_ field: Google_Protobuf_FieldDescriptorProto, scope: String, file: String) {
    fileOfSymbol[scope + field.name] = file
    let extendee = field.extendee.hasPrefix(".") ? String(field.extendee.dropFirst()) : field.extendee
    fileOfExtension[extendee, default: [:]][field.number] = file
  }

  /// The answer to one reflection request.
  package func answer(_ request: Grpc_Reflection_V1_ServerReflectionRequest)
    -> Grpc_Reflection_V1_ServerReflectionResponse
  {
    var response = Grpc_Reflection_V1_ServerReflectionResponse()
    response.validHost = request.host
    response.originalRequest = request
    switch request.messageRequest {
    case .fileByFilename(let name):
      response.messageResponse = fileResponse(name, missing: "no file named \(name)")
    case .fileContainingSymbol(let symbol):
      let name = symbol.hasPrefix(".") ? String(symbol.dropFirst()) : symbol
      response.messageResponse = fileResponse(fileOfSymbol[name], missing: "no symbol named \(symbol)")
    case .fileContainingExtension(let request):
      let file = fileOfExtension[request.containingType]?[request.extensionNumber]
      response.messageResponse = fileResponse(
        file, missing: "no extension \(request.extensionNumber) of \(request.containingType)")
    case .allExtensionNumbersOfType(let type):
      guard fileOfSymbol[type] != nil else {
        response.messageResponse = .errorResponse(Self.notFound("no message type named \(type)"))
        break
      }
      response.messageResponse = .allExtensionNumbersResponse(
        .with {
          $0.baseTypeName = type
          $0.extensionNumber = (fileOfExtension[type] ?? [:]).keys.sorted()
        })
    case .listServices:
      response.messageResponse = .listServicesResponse(
        .with { list in
          list.service = Set(services + relayed()).sorted().map { name in .with { $0.name = name } }
        })
    case nil:
      response.messageResponse = .errorResponse(
        .with {
          $0.errorCode = 3  // INVALID_ARGUMENT
          $0.errorMessage = "the request asks nothing: set one of file_by_filename, file_containing_symbol, …"
        })
    }
    return response
  }

  /// The file and every file it imports, transitively, the file first.
  private func fileResponse(_ name: String?, missing: String)
    -> Grpc_Reflection_V1_ServerReflectionResponse.OneOf_MessageResponse
  {
    guard let name, serialized[name] != nil else { return .errorResponse(Self.notFound(missing)) }
    var order: [String] = []
    var seen: Set<String> = []
    var pending = [name]
    while let next = pending.popLast() {
      guard seen.insert(next).inserted, let imports = dependencies[next] else { continue }
      order.append(next)
      pending.append(contentsOf: imports.reversed())
    }
    return .fileDescriptorResponse(.with { $0.fileDescriptorProto = order.compactMap { serialized[$0] } })
  }

  static func notFound(_ message: String) -> Grpc_Reflection_V1_ErrorResponse {
    .with {
      $0.errorCode = 5  // NOT_FOUND
      $0.errorMessage = message
    }
  }
}
