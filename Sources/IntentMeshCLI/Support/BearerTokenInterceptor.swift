import GRPCCore
import ServiceKit

/// Sends `authorization: Bearer <token>` with every call.
struct BearerTokenInterceptor: ClientInterceptor {
  let token: String

  func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingClientRequest<Input>,
    context: ClientContext,
    next: ClientInterceptorNext<Input, Output>
  ) async throws -> StreamingClientResponse<Output> {
    var request = request
    request.metadata.replaceOrAddString("Bearer \(token)", forKey: "authorization")
    return try await next(request, context)
  }
}
