package import GRPCCore

/// The rest of a client interceptor chain, as `ClientInterceptor` declares it: concurrent (GRPCCore
/// is built without `NonisolatedNonsendingByDefault`), so an interceptor written in a module built
/// with it still witnesses the requirement (`ServerInterceptorNext` for servers).
package typealias ClientInterceptorNext<Input: Sendable, Output: Sendable> =
  @concurrent (StreamingClientRequest<Input>, ClientContext) async throws -> StreamingClientResponse<Output>
