package import GRPCCore
import IntentMeshCore

/// Verifies every call's bearer token before any handler or store is touched, and makes the caller
/// visible to the handler (and to a streaming response) as `VerifiedCaller.current`. A streaming
/// response lasts only while the token holds (`StreamTrust`). Describe, health, reflection and the
/// gateway's route list stay open: they say what a service is, not whose data.
package struct AuthenticationInterceptor: ServerInterceptor {
  package let verifier: TokenVerifier

  static let openServices: Set<String> = [
    "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection",
  ]
  /// Open methods as (service, method): compared as they are, without writing "service/method"
  /// for every call.
  static let openMethods: [(service: String, method: String)] = [
    ("intentmesh.v1.IntentsExtension", "Describe"), ("intentmesh.gateway.v1.Gateway", "ListRoutes"),
  ]

  package init(verifier: TokenVerifier) {
    self.verifier = verifier
  }

  /// Whether calls of `method` need no token.
  static func isOpen(_ method: MethodDescriptor) -> Bool {
    let service = method.service.fullyQualifiedService
    return openServices.contains(service)
      || openMethods.contains { $0.method == method.method && $0.service == service }
  }

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    if Self.isOpen(context.descriptor) { return try await next(request, context) }
    let caller: VerifiedCaller
    let token: Substring
    do {
      token = try BearerCredential.token(in: request.metadata)
      caller = try await verifier.verify(token)
    } catch {
      return StreamingServerResponse(
        error: RPCError(code: error.rpcErrorCode, message: error.rpcErrorMessage, metadata: error.rpcErrorMetadata))
    }
    var response = try await VerifiedCaller.$current.withValue(caller) { try await next(request, context) }
    if case .success(var contents) = response.accepted {
      let producer = contents.producer
      let verifier = verifier
      if StreamTrust.streams(context.descriptor) {
        contents.producer = { writer in
          try await VerifiedCaller.$current.withValue(caller) {
            try await StreamTrust.run(token, caller: caller, verifier: verifier) { try await producer(writer) }
          }
        }
      } else {
        contents.producer = { writer in
          try await VerifiedCaller.$current.withValue(caller) { try await producer(writer) }
        }
      }
      response.accepted = .success(contents)
    }
    return response
  }
}
