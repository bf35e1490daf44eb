internal import Foundation
internal import IntentMeshProtos
internal import SwiftProtobuf
package import IntentsKit

/// The answer a confirm or handle gives instead of going ahead: a failure code, and for the plain
/// `failure` code the reason in the user activity, so the app can tell the user what went wrong.
package struct Refusal<Response: IntentResponseMessage>: Error {
  package let answer: IntentAnswer<Response>

  package init(_ answer: IntentAnswer<Response>) { self.answer = answer }

  package init(_ code: Response.Code, error: String? = nil) {
    answer = IntentAnswer(
      code: code, userActivity: error.map { UserActivityDraft(userInfo: ["error": $0]) })
  }
}
