internal import SwiftProtobuf
internal import GRPCCore
internal import IntentMeshProtos
internal import ServiceKit
internal import IntentMeshCore

/// `intentmesh.v1.IntentsExtension` on the gateway: each call goes to the domain that owns the
/// intent class, payload bytes untouched, status and message of the domain's answer passed back.
struct GatewayExtensionService: Intentmesh_V1_IntentsExtension.ServiceProtocol {
  let router: GatewayRouter

  init(router: GatewayRouter) {
    self.router = router
  }

  func describe(
    request: ServerRequest<Intentmesh_V1_DescribeRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_DescribeResponse> {
    throw GatewayError.unsupported(
      "the gateway routes to many domains: ask intentmesh.gateway.v1.Gateway/ListRoutes, or Describe a domain directly")
  }

  func resolve(
    request: ServerRequest<Intentmesh_V1_ResolveRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_ResolveResponse> {
    let call = try router.call(
      for: request.message.intent, context: request.message.context, metadata: request.metadata, elapsed: .zero)
    return ServerResponse(message: try await call.resolve(request.message))
  }

  func confirm(
    request: ServerRequest<Intentmesh_V1_ConfirmRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_ConfirmResponse> {
    let call = try router.call(
      for: request.message.intent, context: request.message.context, metadata: request.metadata, elapsed: .zero)
    return ServerResponse(message: try await call.confirm(request.message))
  }

  func handle(
    request: ServerRequest<Intentmesh_V1_HandleRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_HandleResponse> {
    let call = try router.call(
      for: request.message.intent, context: request.message.context, metadata: request.metadata, elapsed: .zero)
    return ServerResponse(message: try await call.handle(request.message))
  }

  func configureView(
    request: ServerRequest<Intentmesh_V1_ConfigureViewRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_ConfigureViewResponse> {
    let call = try router.call(
      for: request.message.interaction.intent, context: request.message.context, metadata: request.metadata,
      elapsed: .zero)
    return ServerResponse(message: try await call.configureView(request.message))
  }

  /// Vocabulary has no intent: it goes to every domain that uses the type, and the counts add up.
  func setUserVocabulary(
    request: ServerRequest<Intentmesh_V1_SetUserVocabularyRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_V1_SetUserVocabularyResponse> {
    let type = request.message.vocabularyType
    var apps: Set<String> = []
    let routes = router.directory.statuses.compactMap { endpoint, status -> RoutingTable.Route? in
      guard let manifest = status.manifest, manifest.vocabularyTypes.contains(type) else { return nil }
      // Replicas of one app share its store: tell one of them.
      guard apps.insert(manifest.appName).inserted else { return nil }
      return RoutingTable.Route(
        endpoint: endpoint, appName: manifest.appName, alternativeAppNames: [], declaration: .init())
    }
    guard !routes.isEmpty else {
      throw GatewayError.invalidArgument("no domain uses vocabulary of type \(EnumCaseName.of(type))")
    }
    var total = Intentmesh_V1_SetUserVocabularyResponse()
    for route in routes {
      let answer = try await router.call(route: route, metadata: request.metadata, elapsed: .zero)
        .setUserVocabulary(request.message)
      total.storedCount = max(total.storedCount, answer.storedCount)
      total.discardedCount = max(total.discardedCount, answer.discardedCount)
    }
    return ServerResponse(message: total)
  }

  func startSendingUpdates(
    request: ServerRequest<Intentmesh_V1_StartSendingUpdatesRequest>, context: ServerContext
  ) async throws -> StreamingServerResponse<Intentmesh_V1_LiveUpdate> {
    let call = try router.call(
      for: request.message.intent, context: request.message.context, metadata: request.metadata, elapsed: .zero)
    let message = request.message
    return StreamingServerResponse { writer in
      // A client that leaves cancels the upstream stream too.
      try await RPCCancellation.cancellingWithRPC {
        try await call.startSendingUpdates(message) { try await writer.write($0) }
      }
      return [:]
    }
  }
}
