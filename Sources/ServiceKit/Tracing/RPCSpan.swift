internal import GRPCCore
internal import Tracing

/// The span of one gRPC call, as a server or a client sees it: named "package.Service/Method", with
/// OpenTelemetry's RPC attributes (`rpc.system`, `rpc.service`, `rpc.method`, and at the end
/// `rpc.grpc.status_code`).
enum RPCSpan {
  /// Health checks, reflection and `Describe` (the gateway's discovery asks every domain every few
  /// seconds) are not traced: they would bury the calls people look for.
  static func untraced(_ descriptor: MethodDescriptor) -> Bool {
    let service = descriptor.service.fullyQualifiedService
    return service == "grpc.health.v1.Health" || service.hasPrefix("grpc.reflection.")
      || descriptor.fullyQualifiedMethod == "intentmesh.v1.IntentsExtension/Describe"
  }

  static func start(_ descriptor: MethodDescriptor, parent: ServiceContext, kind: SpanKind) -> any Span {
    let span = InstrumentationSystem.tracer.startSpan(descriptor.fullyQualifiedMethod, context: parent, ofKind: kind)
    span.attributes["rpc.system"] = "grpc"
    span.attributes["rpc.service"] = descriptor.service.fullyQualifiedService
    span.attributes["rpc.method"] = descriptor.method
    return span
  }

  /// Ends `span` with the call's status: OK, or the error's code (UNKNOWN for an error that is not
  /// an `RPCError`) and message.
  static func end(_ span: any Span, error: (any Error)?) {
    let code = (error as? RPCError)?.code.rawValue ?? (error == nil ? 0 : RPCError.Code.unknown.rawValue)
    span.attributes["rpc.grpc.status_code"] = code
    if let error {
      span.setStatus(SpanStatus(code: .error, message: (error as? RPCError)?.message ?? "\(error)"))
    }
    span.end()
  }
}
