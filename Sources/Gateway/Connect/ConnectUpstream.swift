internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import ProtoJSON
internal import ServiceKit

/// The gRPC call behind a Connect or gRPC-Web request. A domain's app service goes to a serving
/// replica of its domain, as the relay sends it; everything else to the gateway's own gRPC server on
/// loopback, which answers it as it answers any gRPC client (authentication, routing, statuses).
final class ConnectUpstream: Sendable {
  /// A client of the gateway's own gRPC server on loopback.
  let gateway: GRPCClient<HTTP2ClientTransport.Posix>
  let directory: DomainDirectory

  let deadline: CallDeadline

  /// The longest a web stream stays open: a live view that wants more opens it again (with a
  /// token that still holds), so that no stream keeps a place, or a user's trust, for ever.
  static let maximumStreamDuration: Duration = .seconds(15 * 60)

  init(gateway: GRPCClient<HTTP2ClientTransport.Posix>, directory: DomainDirectory, deadline: CallDeadline) {
    self.gateway = gateway
    self.directory = directory
    self.deadline = deadline
  }

  struct Call: Sendable {
    var path: String
    var method: ProtoSchema.Method
    var request: [UInt8]
    var metadata: Metadata
    var timeout: Duration?
  }

  /// Makes `call`: `onHeaders` gets the initial metadata, `onMessage` each message as it comes; the
  /// answer is the trailing metadata. A call that ends in error throws its `RPCError`.
  func run(
    _ call: Call, onHeaders: @escaping @Sendable (Metadata) async throws -> Void,
    onMessage: @escaping @Sendable ([UInt8]) async throws -> Void
  ) async throws -> Metadata {
    var options = CallOptions.defaults
    options.timeout = Self.timeout(asked: call.timeout, streaming: call.method.serverStreaming, deadline: deadline)
    var metadata = call.metadata
    metadata.replaceOrAddString(
      RequestID.accept(metadata[stringValues: RequestID.metadataKey].first(where: { _ in true })),
      forKey: RequestID.metadataKey)
    let descriptor = MethodDescriptor(fullyQualifiedService: call.method.service, method: call.method.name)
    return try await client(for: call.path).serverStreaming(
      request: ClientRequest(message: call.request, metadata: metadata), descriptor: descriptor,
      serializer: RawBytesSerializer(), deserializer: RawBytesDeserializer(), options: options
    ) { response in
      let contents = try response.accepted.get()
      try await onHeaders(contents.metadata)
      var trailers = Metadata()
      for try await part in contents.bodyParts {
        switch part {
        case .message(let message): try await onMessage(message)
        case .trailingMetadata(let metadata): trailers = metadata
        }
      }
      return trailers
    }
  }

  /// A call's timeout, as the relay sets it for gRPC callers: the caller's deadline capped, or the
  /// default when it set none; a server stream (live updates) keeps the caller's, up to the web's
  /// longest stream.
  static func timeout(asked: Duration?, streaming: Bool, deadline: CallDeadline) -> Duration {
    streaming
      ? min(asked ?? maximumStreamDuration, maximumStreamDuration)
      : min(asked ?? deadline.defaultTimeout, deadline.maximumTimeout)
  }

  /// The client a call to `path` goes over.
  private func client(for path: String) throws -> GRPCClient<HTTP2ClientTransport.Posix> {
    switch directory.appServiceRoute(path: path) {
    case nil:
      return gateway
    case .domain(let endpoint)?:
      if let connection = directory.connection(for: endpoint) { return connection.client }
      fallthrough
    case .unavailable?:
      throw RPCError(code: .unavailable, message: DomainDirectory.appServiceUnavailable(path: path))
    }
  }
}
