package import GRPCCore
internal import Tracing

/// Carries the current trace to the server a call goes to: a client span for the call (named
/// "package.Service/Method"), whose context is written into the request metadata as W3C
/// `traceparent`/`tracestate`. Nothing when tracing is off or the call is made outside a trace.
package struct TracingClientInterceptor: ClientInterceptor {
  package init() {}

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingClientRequest<Input>,
    context: ClientContext,
    next: ClientInterceptorNext<Input, Output>
  ) async throws -> StreamingClientResponse<Output> {
    guard TraceExport.isEnabled, let parent = ServiceContext.current, !RPCSpan.untraced(context.descriptor) else {
      return try await next(request, context)
    }
    let span = RPCSpan.start(context.descriptor, parent: parent, kind: .client)
    var request = request
    InstrumentationSystem.instrument.inject(span.context, into: &request.metadata, using: MetadataInjector())
    do {
      let response = try await next(request, context)
      // A unary answer is complete here; a stream's span covers its opening.
      switch response.accepted {
      case .success: RPCSpan.end(span, error: nil)
      case .failure(let error): RPCSpan.end(span, error: error)
      }
      return response
    } catch {
      RPCSpan.end(span, error: error)
      throw error
    }
  }
}
