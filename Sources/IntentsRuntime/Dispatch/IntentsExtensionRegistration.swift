internal import GRPCCore
internal import GRPCProtobuf
internal import IntentMeshCore
internal import IntentMeshProtos
internal import SwiftProtobuf

/// `IntentsExtensionService` as the generated code registers it, with every answer encoded by
/// `SizedProtobufSerializer`: an answer nests its interaction twice (the response's user activity
/// and the interaction itself), each with the intent's and the response's payloads, and
/// SwiftProtobuf's own encoder sizes each of those again at every level above it. Requests are
/// decoded as generated. Same bytes on the wire.
struct IntentsExtensionRegistration: RegistrableRPCService {
  let service: IntentsExtensionService

  func registerMethods<Transport: ServerTransport>(with router: inout RPCRouter<Transport>) {
    // Every method as generated, then each answer's serializer replaced (a method registered
    // again replaces the first handler): a method added to the contract is served either way.
    service.registerMethods(with: &router)
    typealias Methods = Intentmesh_V1_IntentsExtension.Method
    Self.register(Methods.Describe.descriptor, with: &router, handler: service.describe)
    Self.register(Methods.Resolve.descriptor, with: &router, handler: service.resolve)
    Self.register(Methods.Confirm.descriptor, with: &router, handler: service.confirm)
    Self.register(Methods.Handle.descriptor, with: &router, handler: service.handle)
    Self.register(Methods.ConfigureView.descriptor, with: &router, handler: service.configureView)
    Self.register(Methods.SetUserVocabulary.descriptor, with: &router, handler: service.setUserVocabulary)
    Self.register(Methods.StartSendingUpdates.descriptor, with: &router, handler: service.startSendingUpdates)
  }

  private static func register<Input: SwiftProtobuf.Message, Output: SwiftProtobuf.Message, Transport>(
    _ method: MethodDescriptor, with router: inout RPCRouter<Transport>,
    handler:
      @escaping @Sendable (StreamingServerRequest<Input>, ServerContext) async throws ->
      StreamingServerResponse<Output>
  ) {
    router.registerHandler(
      forMethod: method, deserializer: ProtobufDeserializer<Input>(), serializer: SizedProtobufSerializer<Output>(),
      handler: handler)
  }
}
