package import GRPCCore
internal import GRPCProtobuf
internal import ReflectionProtos

/// gRPC server reflection, `grpc.reflection.v1` and `grpc.reflection.v1alpha` both (grpcurl 1.8,
/// Postman and Kreya still ask v1alpha). The two packages' messages are the same on the wire, so
/// one handler with v1's types serves both method names.
package struct ReflectionService: RegistrableRPCService {
  /// The two reflection services' full names, to list beside the others.
  package static let serviceNames = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"]

  /// The index each request is answered from (a gateway's changes as its domains come and go).
  let index: @Sendable () -> ReflectionIndex

  /// Reflection over the embedded descriptor set, listing `services` (the reflection services are
  /// added) and, each time it is asked, the services `relayed` names (answered on the same port by
  /// someone else, e.g. the domains' app services behind a gateway).
  package init(services: [String], relayed: @escaping @Sendable () -> [String] = { [] }) throws {
    let index = try ReflectionIndex.embedded(services: services + Self.serviceNames, relayed: relayed)
    self.index = { index }
  }

  /// Reflection over whatever `index` holds when asked; it should list `serviceNames` too.
  package init(index: @escaping @Sendable () -> ReflectionIndex) {
    self.index = index
  }

  package func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
    for service in Self.serviceNames {
      router.registerHandler(
        forMethod: MethodDescriptor(fullyQualifiedService: service, method: "ServerReflectionInfo"),
        deserializer: ProtobufDeserializer<Grpc_Reflection_V1_ServerReflectionRequest>(),
        serializer: ProtobufSerializer<Grpc_Reflection_V1_ServerReflectionResponse>()
      ) { request, _ in
        StreamingServerResponse { writer in
          for try await message in request.messages {
            try await writer.write(index().answer(message))
          }
          return [:]
        }
      }
    }
  }
}
