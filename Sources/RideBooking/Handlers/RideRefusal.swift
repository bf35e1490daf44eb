internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
package import IntentsKit

/// A ride intent's answer when it cannot go ahead: its code, and the reason in the user activity
/// the app opens with.
package struct RideRefusal<Response: IntentResponseMessage>: Error {
  package let answer: IntentAnswer<Response>

  package init(_ code: Response.Code, _ reason: String) {
    answer = IntentAnswer(code: code, userActivity: UserActivityDraft(userInfo: ["error": reason]))
  }
}
