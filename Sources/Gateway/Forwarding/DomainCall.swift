internal import SwiftProtobuf
internal import GRPCCore
internal import GRPCNIOTransportHTTP2
internal import IntentMeshProtos

/// Calls to the domain that owns a route, with the caller's deadline and metadata carried along,
/// and a domain that cannot be reached reported as UNAVAILABLE naming the app.
struct DomainCall: Sendable {
  let route: RoutingTable.Route
  let connection: DomainConnection
  let metadata: Metadata
  /// When the caller's time is up; every call made for this request shares it.
  let deadline: ContinuousClock.Instant
  /// Told whether each unary call was answered (false) or not in time (true): the directory's
  /// outlier detection (`DomainDirectory.report`).
  let outcome: (@Sendable (_ failed: Bool) -> Void)?

  init(
    route: RoutingTable.Route, connection: DomainConnection, metadata: Metadata, timeout: Duration,
    outcome: (@Sendable (_ failed: Bool) -> Void)? = nil
  ) {
    self.route = route
    self.connection = connection
    self.metadata = metadata
    self.deadline = .now + timeout
    self.outcome = outcome
  }

  /// Options for the next call: what is left of the deadline, failing fast when the domain is down.
  private var options: CallOptions {
    var options = CallOptions.defaults
    options.timeout = max(deadline - .now, .milliseconds(1))
    options.waitForReady = false
    return options
  }

  private var client: Intentmesh_V1_IntentsExtension.Client<HTTP2ClientTransport.Posix> { connection.extensionClient }

  func resolve(_ request: Intentmesh_V1_ResolveRequest) async throws -> Intentmesh_V1_ResolveResponse {
    try await mapped { try await client.resolve(request, metadata: metadata, options: options) }
  }

  func confirm(_ request: Intentmesh_V1_ConfirmRequest) async throws -> Intentmesh_V1_ConfirmResponse {
    try await mapped { try await client.confirm(request, metadata: metadata, options: options) }
  }

  func handle(_ request: Intentmesh_V1_HandleRequest) async throws -> Intentmesh_V1_HandleResponse {
    try await mapped { try await client.handle(request, metadata: metadata, options: options) }
  }

  func configureView(_ request: Intentmesh_V1_ConfigureViewRequest) async throws
    -> Intentmesh_V1_ConfigureViewResponse
  {
    try await mapped { try await client.configureView(request, metadata: metadata, options: options) }
  }

  func setUserVocabulary(
    _ request: Intentmesh_V1_SetUserVocabularyRequest
  ) async throws -> Intentmesh_V1_SetUserVocabularyResponse {
    try await mapped { try await client.setUserVocabulary(request, metadata: metadata, options: options) }
  }

  /// Streams live updates into `write` until the domain ends the stream.
  func startSendingUpdates(
    _ request: Intentmesh_V1_StartSendingUpdatesRequest,
    into write: @escaping @Sendable (Intentmesh_V1_LiveUpdate) async throws -> Void
  ) async throws {
    var streaming = options
    streaming.timeout = nil
    try await mapped {
      try await client.startSendingUpdates(request, metadata: metadata, options: streaming) { response in
        for try await update in response.messages { try await write(update) }
      }
    }
  }

  /// Domain errors pass through with their status; an unreachable domain becomes UNAVAILABLE
  /// naming the app, so the caller knows which domain is down.
  private func mapped<T: Sendable>(_ call: () async throws -> T) async throws -> T {
    let answer: T
    do {
      answer = try await call()
    } catch let error as RPCError {
      // Unanswered in time, or unreachable: the replica's failure; any other status is its answer.
      outcome?(error.code == .unavailable || error.code == .deadlineExceeded)
      if error.code == .unavailable {
        throw GatewayError.domainUnavailable(
          appName: route.appName, endpoint: "\(connection.endpoint)", detail: error.message)
      }
      // The domain's status and message pass through; its transport trailers do not.
      throw RPCError(
        code: error.code, message: error.message, metadata: ForwardedMetadata.forward(error.metadata, requestID: nil))
    }
    outcome?(false)
    return answer
  }
}
