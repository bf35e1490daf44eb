package import GRPCCore
internal import Tracing

/// A server span for every call, child of the caller's (W3C `traceparent` in its metadata): named
/// "package.Service/Method", with `rpc.system`, `rpc.service`, `rpc.method` and
/// `rpc.grpc.status_code` (`RPCSpan`); it lasts until the last response message is written.
/// Nothing when tracing is off, and nothing for health checks and reflection.
package struct TracingServerInterceptor: ServerInterceptor {
  package init() {}

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    guard TraceExport.isEnabled, !RPCSpan.untraced(context.descriptor) else { return try await next(request, context) }
    var parent = ServiceContext.current ?? .topLevel
    InstrumentationSystem.instrument.extract(request.metadata, into: &parent, using: MetadataExtractor())
    let span = RPCSpan.start(context.descriptor, parent: parent, kind: .server)
    var response: StreamingServerResponse<Output>
    do {
      response = try await ServiceContext.withValue(span.context) {
        try await TraceExport.$callIsRecorded.withValue(span.isRecording) { try await next(request, context) }
      }
    } catch {
      RPCSpan.end(span, error: error)
      throw error
    }
    switch response.accepted {
    case .failure(let error):
      RPCSpan.end(span, error: error)
    case .success(var contents):
      let producer = contents.producer
      contents.producer = { writer in
        do {
          let trailers = try await ServiceContext.withValue(span.context) {
            try await TraceExport.$callIsRecorded.withValue(span.isRecording) { try await producer(writer) }
          }
          RPCSpan.end(span, error: nil)
          return trailers
        } catch {
          RPCSpan.end(span, error: error)
          throw error
        }
      }
      response.accepted = .success(contents)
    }
    return response
  }
}
