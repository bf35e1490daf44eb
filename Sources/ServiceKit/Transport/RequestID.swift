internal import IntentMeshProtos
internal import SwiftProtobuf
package import GRPCCore

/// The request id of the call in progress, read from or written to `x-request-id`.
package enum RequestID {
  @TaskLocal package static var current: String?

  /// The metadata key clients and services use.
  package static let metadataKey = "x-request-id"

  /// A client's id when it is usable (printable ASCII, at most 128 characters); a new one otherwise.
  package static func accept(_ candidate: String?) -> String {
    if let candidate, !candidate.isEmpty, candidate.utf8.count <= 128,
      candidate.utf8.allSatisfy({ $0 >= 0x21 && $0 < 0x7F })
    {
      return candidate
    }
    return UUIDStringGenerator.shared.next()
  }
}

/// Gives every call a request id: the client's `x-request-id` or a new one, visible to the handler
/// through `RequestID.current` and echoed in the response's initial metadata.
package struct RequestIDInterceptor: ServerInterceptor {
  package init() {}

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    let id = RequestID.accept(request.metadata[stringValues: RequestID.metadataKey].first(where: { _ in true }))
    var response = try await RequestID.$current.withValue(id) { try await next(request, context) }
    if case .success(var contents) = response.accepted {
      contents.metadata.replaceOrAddString(id, forKey: RequestID.metadataKey)
      let producer = contents.producer
      contents.producer = { writer in
        try await RequestID.$current.withValue(id) { try await producer(writer) }
      }
      response.accepted = .success(contents)
    }
    return response
  }
}
