internal import IntentMeshProtos
package import GRPCCore
internal import SwiftProtobuf

/// Answers a compressed request message larger than the configured limit, once decompressed, with
/// RESOURCE_EXHAUSTED and a message saying both sizes. The transport alone would reset the stream
/// (grpc-swift's HTTP/2 transport resets a stream whose message is over its cap, and the client sees
/// only CANCELLED), so the transport's cap is set well above the limit
/// (`ServiceTransport.transportCap`) and the limit is kept here and in `RequestEndHandler`, which
/// answers an uncompressed message from its length prefix before it arrives. A call whose client
/// compresses nothing (no `grpc-encoding`, or `identity`) passes untouched: its messages are not
/// encoded again to be measured.
package struct MessageSizeInterceptor: ServerInterceptor {
  package let limit: Int

  package init(limit: Int) { self.limit = limit }

  package func intercept<Input: Sendable, Output: Sendable>(
    request: StreamingServerRequest<Input>,
    context: ServerContext,
    next: ServerInterceptorNext<Input, Output>
  ) async throws -> StreamingServerResponse<Output> {
    guard let encoding = request.metadata[stringValues: "grpc-encoding"].first(where: { _ in true }),
      encoding != "identity"
    else { return try await next(request, context) }
    let limit = limit
    let method = context.descriptor.fullyQualifiedMethod
    var checked = request
    checked.messages = RPCAsyncSequence(
      wrapping: request.messages.map { message in
        if let protobuf = message as? any SwiftProtobuf.Message {
          let size = (try protobuf.serializedBytes() as [UInt8]).count
          if size > limit {
            throw RPCError(
              code: .resourceExhausted,
              message:
                "\(method): the request message is \(size) bytes; this service accepts at most \(limit) (--max-message-bytes)"
            )
          }
        }
        return message
      })
    return try await next(checked, context)
  }
}
