internal import SwiftProtobuf
internal import GRPCCore
internal import IntentMeshProtos
internal import ServiceKit
internal import IntentMeshCore

/// `intentmesh.gateway.v1.Gateway`: the conversation (from an intent or from words), the layout,
/// the routing table, and words to intents.
struct GatewayService: Intentmesh_Gateway_V1_Gateway.ServiceProtocol {
  let router: GatewayRouter
  let layouts: LayoutBuilder
  let understander: Understander

  init(router: GatewayRouter, layouts: LayoutBuilder = LayoutBuilder(), understander: Understander) {
    self.router = router
    self.layouts = layouts
    self.understander = understander
  }

  func interact(
    request: ServerRequest<Intentmesh_Gateway_V1_InteractRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_Gateway_V1_InteractResponse> {
    _ = try UserIdentity.userID(of: request.message.context)
    var turn = request.message
    var understood: Intentmesh_Gateway_V1_Candidate?
    if !turn.text.isEmpty {
      switch try TextTurn.choose(
        understander.candidates(text: turn.text, appName: turn.intent.appName, context: turn.context),
        appName: turn.intent.appName)
      {
      case .answer(let answer): return ServerResponse(message: answer)
      case .intent(let candidate):
        understood = candidate
        var intent = candidate.intent
        intent.identifier = turn.intent.identifier
        turn.intent = intent
      }
    }
    let call = try router.call(for: turn.intent, context: turn.context, metadata: request.metadata, elapsed: .zero)
    var response = try await Conversation(call: call, layouts: layouts).turn(turn)
    if let understood { response.candidates = [understood] }
    return ServerResponse(message: response)
  }

  func understand(
    request: ServerRequest<Intentmesh_Gateway_V1_UnderstandRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_Gateway_V1_UnderstandResponse> {
    _ = try UserIdentity.userID(of: request.message.context)
    let candidates = try understander.candidates(
      text: request.message.text, appName: request.message.appName, context: request.message.context)
    return ServerResponse(message: .with { $0.candidates = candidates })
  }

  func layout(
    request: ServerRequest<Intentmesh_Gateway_V1_LayoutRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_Gateway_V1_LayoutResponse> {
    _ = try UserIdentity.userID(of: request.message.context)
    guard !request.message.interactions.isEmpty else {
      throw GatewayError.invalidArgument("LayoutRequest.interactions is empty: give at least one interaction")
    }
    var response = Intentmesh_Gateway_V1_LayoutResponse()
    for interaction in request.message.interactions {
      let call = try router.call(
        for: interaction.intent, context: request.message.context, metadata: request.metadata, elapsed: .zero)
      response.layouts.append(
        try await layouts.layout(
          of: interaction, context: request.message.context, display: request.message.display, call: call))
    }
    return ServerResponse(message: response)
  }

  func listRoutes(
    request: ServerRequest<Intentmesh_Gateway_V1_ListRoutesRequest>, context: ServerContext
  ) async throws -> ServerResponse<Intentmesh_Gateway_V1_ListRoutesResponse> {
    let statuses = router.directory.statuses
    let table = router.directory.table
    return ServerResponse(
      message: .with { response in
        response.domains = statuses.map { endpoint, status in
          .with {
            $0.endpoint = "\(endpoint)"
            $0.appName = status.manifest?.appName ?? ""
            $0.alternativeAppNames = status.manifest?.alternativeAppNames.map(\.name) ?? []
            $0.health = status.health
            $0.lastError = status.lastError
            $0.intentCount = Int32(status.manifest?.intents.count ?? 0)
          }
        }
        response.routes = table.allRoutes.map { route in
          .with {
            $0.intentClass = route.intentClass
            $0.endpoint = route.replicas.map { "\($0)" }.joined(separator: ",")
            $0.appName = route.appName
            $0.payloadType = route.declaration.payloadType
            $0.restrictedWhileLocked = route.restrictedWhileLocked
            $0.declaration = route.declaration
          }
        }
      })
  }
}
