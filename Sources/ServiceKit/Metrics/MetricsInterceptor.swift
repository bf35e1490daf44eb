package import GRPCCore

/// Counts every call and its outcome in `RPCMetrics`. Put it first, so that it sees the status of
/// calls other interceptors refuse.
package struct MetricsInterceptor: ServerInterceptor {
  package let metrics: RPCMetrics

  package init(metrics: RPCMetrics) { self.metrics = metrics }

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    let metrics = metrics
    let record = metrics.started(
      service: context.descriptor.service.fullyQualifiedService, method: context.descriptor.method)
    var response: StreamingServerResponse<Output>
    do {
      response = try await next(request, context)
    } catch {
      metrics.finished(record, code: Self.codeName(of: error))
      throw error
    }
    switch response.accepted {
    case .failure(let error):
      metrics.finished(record, code: Self.name(error.code))
    case .success(var contents):
      let producer = contents.producer
      contents.producer = { writer in
        do {
          let trailers = try await producer(writer)
          metrics.finished(record, code: "OK")
          return trailers
        } catch {
          metrics.finished(record, code: Self.codeName(of: error))
          throw error
        }
      }
      response.accepted = .success(contents)
    }
    return response
  }

  static func codeName(of error: any Error) -> String {
    if let error = error as? RPCError { return name(error.code) }
    if let convertible = error as? any RPCErrorConvertible { return name(convertible.rpcErrorCode) }
    return error is CancellationError ? "CANCELLED" : "UNKNOWN"
  }

  /// The canonical upper-case name of a status code, as in the gRPC spec.
  package static func name(_ code: RPCError.Code) -> String {
    switch code {
    case .cancelled: "CANCELLED"
    case .unknown: "UNKNOWN"
    case .invalidArgument: "INVALID_ARGUMENT"
    case .deadlineExceeded: "DEADLINE_EXCEEDED"
    case .notFound: "NOT_FOUND"
    case .alreadyExists: "ALREADY_EXISTS"
    case .permissionDenied: "PERMISSION_DENIED"
    case .resourceExhausted: "RESOURCE_EXHAUSTED"
    case .failedPrecondition: "FAILED_PRECONDITION"
    case .aborted: "ABORTED"
    case .outOfRange: "OUT_OF_RANGE"
    case .unimplemented: "UNIMPLEMENTED"
    case .internalError: "INTERNAL"
    case .unavailable: "UNAVAILABLE"
    case .dataLoss: "DATA_LOSS"
    case .unauthenticated: "UNAUTHENTICATED"
    default: "UNKNOWN"
    }
  }
}
