internal import IntentMeshProtos
internal import SwiftProtobuf

/// The answer a confirm or handle gives instead of going ahead — a failure code and, when given,
/// the reason in the user activity the app opens with — as an error, so a handler's shared checks
/// can return `Result<Plan, IntentRefusal<Response>>`.
package struct IntentRefusal<Response: IntentResponseMessage>: Error {
  package let answer: IntentAnswer<Response>

  package init(_ answer: IntentAnswer<Response>) { self.answer = answer }

  package init(_ code: Response.Code) { answer = IntentAnswer(code: code) }

  /// A refusal whose user activity carries `["error": reason]`.
  package init(_ code: Response.Code, _ reason: String) {
    answer = IntentAnswer(code: code, userActivity: UserActivityDraft(userInfo: ["error": reason]))
  }
}
