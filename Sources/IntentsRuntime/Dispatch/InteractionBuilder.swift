internal import IntentsKit
internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import ServiceKit

/// Builds the envelope SiriKit would: the response with its code, the interaction, and the default
/// user activity (type = intent class name, carrying the interaction) when the handler gave none.
enum InteractionBuilder {
  static func build(
    intent: Intentmesh_V1_Intent,
    answer: HandlerAnswer,
    status: Intentmesh_V1_IntentHandlingStatus,
    date: Date,
    identifier: String = UUIDStringGenerator.shared.next()
  ) -> (response: Intentmesh_V1_IntentResponse, interaction: Intentmesh_V1_Interaction) {
    var response = Intentmesh_V1_IntentResponse.with {
      $0.intentClass = intent.intentClass
      $0.code = answer.code
      $0.codeName = answer.codeName
      $0.payload = answer.payload
    }
    var interaction = Intentmesh_V1_Interaction.with {
      $0.identifier = identifier
      $0.intent = intent
      $0.intentResponse = response
      $0.intentHandlingStatus = status
      $0.direction = .outgoing
      $0.date = Google_Protobuf_Timestamp(date: date)
    }
    response.userActivity = .with {
      let type = answer.userActivity?.activityType ?? ""
      $0.activityType = type.isEmpty ? intent.intentClass : type
      $0.userInfo = answer.userActivity?.userInfo ?? [:]
      $0.interaction = interaction
    }
    interaction.intentResponse = response
    return (response, interaction)
  }

  /// The interaction `build` made with `response`: the one the response's user activity carries,
  /// whose intent response is the response itself, user activity included. A stored answer keeps
  /// the response alone when its interaction is this one (`storable`), and gets it back so.
  static func interaction(of response: Intentmesh_V1_IntentResponse) -> Intentmesh_V1_Interaction {
    var interaction = response.userActivity.interaction
    interaction.intentResponse = response
    return interaction
  }

  /// `answer` as the handled-intent ledger keeps it: without its interaction when that is the one
  /// its response carries (`interaction(of:)`) — it would repeat the response's bytes twice more.
  static func storable(_ answer: Intentmesh_V1_HandleResponse) -> Intentmesh_V1_HandleResponse {
    guard answer.hasInteraction, answer.response.userActivity.hasInteraction,
      interaction(of: answer.response) == answer.interaction
    else { return answer }
    var stored = answer
    stored.clearInteraction()
    return stored
  }

  /// A stored answer as it was given (`storable` undone); an answer stored whole is returned as is.
  static func restored(_ stored: Intentmesh_V1_HandleResponse) -> Intentmesh_V1_HandleResponse {
    guard !stored.hasInteraction, stored.response.userActivity.hasInteraction else { return stored }
    var answer = stored
    answer.interaction = interaction(of: stored.response)
    return answer
  }
}
