internal import Foundation
internal import Logging
internal import SwiftProtobuf
package import IntentMeshProtos
internal import IntentsKit
package import MessagingProtos

/// Short names for the generated messaging contract.
package typealias SendMessageIntent = Intentmesh_Messaging_V1_SendMessageIntent
package typealias SendMessageIntentResponse = Intentmesh_Messaging_V1_SendMessageIntentResponse
package typealias SearchForMessagesIntent = Intentmesh_Messaging_V1_SearchForMessagesIntent
package typealias SearchForMessagesIntentResponse = Intentmesh_Messaging_V1_SearchForMessagesIntentResponse
package typealias SetMessageAttributeIntent = Intentmesh_Messaging_V1_SetMessageAttributeIntent
package typealias SetMessageAttributeIntentResponse = Intentmesh_Messaging_V1_SetMessageAttributeIntentResponse
package typealias GetVisualCodeIntent = Intentmesh_Messaging_V1_GetVisualCodeIntent
package typealias GetVisualCodeIntentResponse = Intentmesh_Messaging_V1_GetVisualCodeIntentResponse
package typealias ChatMessage = Intentmesh_Messaging_V1_Message
package typealias MessageAttribute = Intentmesh_Messaging_V1_MessageAttribute
package typealias MessageAttributeOptions = Intentmesh_Messaging_V1_MessageAttributeOptions
package typealias VisualCodeType = Intentmesh_Messaging_V1_VisualCodeType
package typealias RecipientUnsupportedReason = Intentmesh_Messaging_V1_SendMessageRecipientUnsupportedReason
package typealias Person = Intentmesh_V1_Person
package typealias SpeakableString = Intentmesh_V1_SpeakableString

extension MessageAttribute: ParameterValue {}
extension VisualCodeType: ParameterValue {}
extension MessageAttributeOptions: ParameterValue {
  package var displayText: String {
    [(read, "read"), (unread, "unread"), (flagged, "flagged"), (unflagged, "unflagged"), (played, "played")]
      .filter(\.0).map(\.1).joined(separator: ", ")
  }
}
