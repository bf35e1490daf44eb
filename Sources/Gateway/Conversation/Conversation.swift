internal import SwiftProtobuf
internal import GRPCCore
#if canImport(FoundationEssentials)
  internal import FoundationEssentials
#else
  internal import Foundation
#endif
internal import IntentMeshProtos

/// One turn of the conversation Siri has between the user and an app: resolve every parameter,
/// stop at the first one that needs the user, confirm, ask the user when the intent needs it, handle.
/// Stateless: the intent the client sends back carries everything.
struct Conversation: Sendable {
  let call: DomainCall
  let layouts: LayoutBuilder

  init(call: DomainCall, layouts: LayoutBuilder) {
    self.call = call
    self.layouts = layouts
  }

  func turn(_ request: Intentmesh_Gateway_V1_InteractRequest) async throws
    -> Intentmesh_Gateway_V1_InteractResponse
  {
    var intent = request.intent
    if intent.identifier.isEmpty { intent.identifier = UUID().uuidString.lowercased() }
    let declaration = call.route.declaration
    var response = Intentmesh_Gateway_V1_InteractResponse()
    response.appName = call.route.appName

    let resolved = try await call.resolve(
      .with {
        $0.context = request.context; $0.intent = intent
      })
    intent = resolved.resolvedIntent
    if intent.identifier.isEmpty { intent.identifier = request.intent.identifier }
    response.intent = intent
    response.resolutions = resolved.resolutions
    let confirmed = Set(request.confirmedParameters)
    for resolution in resolved.resolutions {
      for (index, result) in resolution.results.enumerated()
      where !Self.isSettled(result, confirmed: confirmed, parameter: resolution.parameter) {
        response.stage = .needsParameter
        response.parameter = resolution.parameter
        response.elementIndex = Int32(index)
        response.result = result
        response.prompt = Prompts.prompt(for: result, parameter: resolution.parameter, declaration: declaration)
        return response
      }
    }

    let confirm = try await call.confirm(
      .with {
        $0.context = request.context; $0.intent = intent
      })
    switch confirm.interaction.intentHandlingStatus {
    case .ready, .userConfirmationRequired:
      break
    default:
      response.stage = .failed
      response.response = confirm.response
      response.interaction = confirm.interaction
      response.layout = try await layouts.layout(
        of: confirm.interaction, context: request.context, display: request.display, call: call)
      return response
    }
    let mustAsk =
      declaration.requiresUserConfirmation || confirm.interaction.intentHandlingStatus == .userConfirmationRequired
    // A yes without the token of the answer it was given to is no yes for this exact intent: ask.
    let saidYes = request.userConfirmed && (confirm.confirmationToken.isEmpty || !request.confirmationToken.isEmpty)
    if mustAsk, !saidYes {
      return try await asking(response, confirm: confirm, changed: [], request: request)
    }

    // The token of the answer the user said yes to, not of this turn's Confirm: a changed intent
    // needs a new yes.
    let handled: Intentmesh_V1_HandleResponse
    do {
      handled = try await call.handle(
        .with {
          $0.context = request.context; $0.intent = intent; $0.confirmationToken = request.confirmationToken
        })
    } catch let error as RPCError {
      // The yes no longer holds — a value the user agreed to changed meanwhile, or it expired: ask
      // again, with this turn's values and token. Nothing was done.
      guard mustAsk, !confirm.confirmationToken.isEmpty, let refusal = ConfirmationRefusal(error) else { throw error }
      return try await asking(response, confirm: confirm, changed: refusal.changedParameters, request: request)
    }
    switch handled.interaction.intentHandlingStatus {
    case .success, .inProgress: response.stage = .done
    default: response.stage = .failed
    }
    response.response = handled.response
    response.interaction = handled.interaction
    response.layout = try await layouts.layout(
      of: handled.interaction, context: request.context, display: request.display, call: call)
    return response
  }

  /// The turn that asks for the user's yes to `confirm`'s answer — again, when `changed` names the
  /// parameters whose values changed since the last yes.
  private func asking(
    _ response: Intentmesh_Gateway_V1_InteractResponse, confirm: Intentmesh_V1_ConfirmResponse, changed: [String],
    request: Intentmesh_Gateway_V1_InteractRequest
  ) async throws -> Intentmesh_Gateway_V1_InteractResponse {
    var response = response
    let declaration = call.route.declaration
    response.stage = .needsConfirmation
    response.confirmationToken = confirm.confirmationToken
    response.changedParameters = changed
    response.prompt = Prompts.confirmation(for: declaration)
    if request.userConfirmed, !request.confirmationToken.isEmpty, !changed.isEmpty {
      response.prompt = Prompts.changed(changed, declaration: declaration) + " " + response.prompt
    }
    response.response = confirm.response
    response.interaction = confirm.interaction
    response.layout = try await layouts.layout(
      of: confirm.interaction, context: request.context, display: request.display, call: call)
    return response
  }

  /// Success and not_required need nothing more; a guess the user already said yes to neither.
  static func isSettled(_ result: Intentmesh_V1_ResolutionResult, confirmed: Set<String>, parameter: String) -> Bool {
    switch result.kind {
    case .success, .notRequired: true
    case .confirmationRequired: confirmed.contains(parameter)
    default: false
    }
  }
}
