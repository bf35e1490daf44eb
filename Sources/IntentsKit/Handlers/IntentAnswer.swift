internal import IntentMeshProtos
internal import SwiftProtobuf
/// What confirm or handle answers: the typed response and, optionally, the user activity the app
/// continues from (SiriKit's `init(code:userActivity:)`). Without one, the runtime makes SiriKit's
/// default: an activity whose type is the intent class name, carrying the interaction.
package struct IntentAnswer<Response: IntentResponseMessage>: Sendable {
  package var response: Response
  package var userActivity: UserActivityDraft?

  package init(_ response: Response, userActivity: UserActivityDraft? = nil) {
    self.response = response
    self.userActivity = userActivity
  }

  package init(code: Response.Code, userActivity: UserActivityDraft? = nil) {
    self.init(Response(code: code), userActivity: userActivity)
  }
}

/// A user activity a handler supplies: its type (the intent class name when empty) and user info.
package struct UserActivityDraft: Sendable, Equatable {
  package var activityType: String
  package var userInfo: [String: String]

  package init(activityType: String = "", userInfo: [String: String]) {
    self.activityType = activityType
    self.userInfo = userInfo
  }
}
