package import GRPCCore

/// The rest of a server interceptor chain, as `ServerInterceptor` declares it: concurrent (GRPCCore
/// is built without `NonisolatedNonsendingByDefault`), so an interceptor written in a module whose
/// async functions run on their caller's executor still witnesses the requirement.
package typealias ServerInterceptorNext<Input: Sendable, Output: Sendable> =
  @concurrent @Sendable (StreamingServerRequest<Input>, ServerContext) async throws -> StreamingServerResponse<Output>
