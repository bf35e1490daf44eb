internal import Foundation
internal import IntentMeshProtos
internal import IntentsKit
internal import MessagingProtos

/// Short names for the generated messaging contract.
typealias SendMessageIntent = Intentmesh_Messaging_V1_SendMessageIntent
typealias SendMessageIntentResponse = Intentmesh_Messaging_V1_SendMessageIntentResponse
typealias SearchForMessagesIntent = Intentmesh_Messaging_V1_SearchForMessagesIntent
typealias SearchForMessagesIntentResponse = Intentmesh_Messaging_V1_SearchForMessagesIntentResponse
typealias SetMessageAttributeIntent = Intentmesh_Messaging_V1_SetMessageAttributeIntent
typealias SetMessageAttributeIntentResponse = Intentmesh_Messaging_V1_SetMessageAttributeIntentResponse
typealias GetVisualCodeIntent = Intentmesh_Messaging_V1_GetVisualCodeIntent
typealias GetVisualCodeIntentResponse = Intentmesh_Messaging_V1_GetVisualCodeIntentResponse
typealias ChatMessage = Intentmesh_Messaging_V1_Message
typealias MessageAttribute = Intentmesh_Messaging_V1_MessageAttribute
typealias MessageAttributeOptions = Intentmesh_Messaging_V1_MessageAttributeOptions
typealias VisualCodeType = Intentmesh_Messaging_V1_VisualCodeType
typealias RecipientUnsupportedReason = Intentmesh_Messaging_V1_SendMessageRecipientUnsupportedReason
typealias Person = Intentmesh_V1_Person
typealias SpeakableString = Intentmesh_V1_SpeakableString

extension MessageAttribute: ParameterValue {}
extension VisualCodeType: ParameterValue {}
extension MessageAttributeOptions: ParameterValue {
  var displayText: String {
    [(read, "read"), (unread, "unread"), (flagged, "flagged"), (unflagged, "unflagged"), (played, "played")]
      .filter(\.0).map(\.1).joined(separator: ", ")
  }
}
