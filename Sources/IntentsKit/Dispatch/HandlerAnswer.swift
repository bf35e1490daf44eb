package import IntentMeshProtos
package import SwiftProtobuf

/// A confirm or handle answer with its typed response packed: what the runtime needs to build the
/// envelope without knowing the intent's types.
package struct HandlerAnswer: Sendable {
  package var payload: Google_Protobuf_Any
  package var code: Int32
  package var codeName: String
  package var status: Intentmesh_V1_IntentHandlingStatus
  package var userActivity: UserActivityDraft?

  init<R: IntentResponseMessage>(_ answer: IntentAnswer<R>) throws {
    self.payload = try .packing(answer.response)
    self.code = Int32(answer.response.code.rawValue)
    self.codeName = answer.response.codeName
    self.status = answer.response.handlingStatus
    self.userActivity = answer.userActivity
  }
}

/// The outcome of resolving an intent's parameters.
package struct ResolveOutcome: Sendable {
  package var resolutions: [Intentmesh_V1_ParameterResolution]
  /// The intent with every successful value written back.
  package var resolvedPayload: Google_Protobuf_Any
  /// Every resolved parameter is success or not_required.
  package var complete: Bool
}
