internal import IntentsKit
internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import ServiceKit

/// Builds the envelope SiriKit would: the response with its code, the interaction, and the default
/// user activity (type = intent class name, carrying the interaction) when the handler gave none.
///
/// SiriKit's objects form a cycle (the interaction's response's user activity is that interaction);
/// the envelope cuts it once: the response carries the user activity, the activity carries the
/// interaction, and the interaction carries the response without its user activity. So the
/// interaction a Confirm or Handle answers with is the very one its response's activity carries,
/// and an answer carries each payload three times, not four, and the intent twice, not three times.
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
    let interaction = Intentmesh_V1_Interaction.with {
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
    return (response, interaction)
  }

  /// The interaction `build` made with `response`: the one the response's user activity carries. A
  /// stored answer keeps the response alone when its interaction is this one (`storable`), and gets
  /// it back so.
  static func interaction(of response: Intentmesh_V1_IntentResponse) -> Intentmesh_V1_Interaction {
    response.userActivity.interaction
  }

  /// `answer` as the handled-intent ledger keeps it: without its interaction when that is the one
  /// its response carries (`interaction(of:)`) — it would repeat the intent and the payload. An
  /// answer stored before the cycle was cut (whose interaction's response carried the activity
  /// again) is restored in today's shape.
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
