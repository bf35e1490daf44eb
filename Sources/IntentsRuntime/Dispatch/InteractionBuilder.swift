internal import IntentsKit
internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf

/// Builds the envelope SiriKit would: the response with its code, the interaction, and the default
/// user activity (type = intent class name, carrying the interaction) when the handler gave none.
enum InteractionBuilder {
  static func build(
    intent: Intentmesh_V1_Intent,
    answer: HandlerAnswer,
    status: Intentmesh_V1_IntentHandlingStatus,
    date: Date,
    identifier: String = UUID().uuidString
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
}
