package import GRPCCore
package import Logging
internal import NIOCore

/// Answers a call whose handler failed with an error that carries no gRPC status (a store error, a
/// bug) INTERNAL with the request id, and logs the error with that id: the client gets something to
/// quote, the operator finds the cause, and internals stay out of the message. Errors that carry a
/// status, and cancellations, pass through; a write to a stream the client already closed (it went
/// away, or the server is shutting down) is a cancellation too, logged at debug. Put it after `RequestIDInterceptor`, whose id it reads.
package struct UnexpectedErrorInterceptor: ServerInterceptor {
  private let logger: Logger

  package init(logger: Logger) { self.logger = logger }

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    let method = context.descriptor.method
    let logger = logger
    var response: StreamingServerResponse<Output>
    do {
      response = try await next(request, context)
    } catch {
      throw Self.answer(for: error, method: method, logger: logger)
    }
    if case .success(var contents) = response.accepted {
      let producer = contents.producer
      contents.producer = { writer in
        do {
          return try await producer(writer)
        } catch {
          throw Self.answer(for: error, method: method, logger: logger)
        }
      }
      response.accepted = .success(contents)
    }
    return response
  }

  /// The error a client gets for `error`.
  package static func answer(for error: any Error, method: String, logger: Logger) -> any Error {
    switch error {
    case is RPCError, is any RPCErrorConvertible:
      return error
    case is CancellationError:
      return RPCError(code: .cancelled, message: "\(method) was cancelled")
    case ChannelError.ioOnClosedChannel, ChannelError.alreadyClosed, ChannelError.outputClosed:
      logger.debug("\(method): the stream closed before the answer was written", metadata: ["error": "\(error)"])
      return RPCError(code: .cancelled, message: "\(method) was cancelled: the stream closed")
    default:
      let requestID = RequestID.current ?? "-"
      logger.error(
        "\(method) failed", metadata: ["request-id": "\(requestID)", "error": "\(String(reflecting: error))"])
      return RPCError(code: .internalError, message: "\(method) failed inside the service (request id \(requestID))")
    }
  }
}
