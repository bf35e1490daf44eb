internal import IntentMeshProtos
/// A handler whose intent in progress sends live updates (SiriKit's
/// `startSendingUpdates(for:to:)` / `stopSendingUpdates(for:)`): it calls `send` for each change and
/// returns when the intent ends; cancellation of the task is `stopSendingUpdates`.
package protocol LiveUpdatingIntentHandler: IntentHandler {
  func startSendingUpdates(
    for intent: Intent,
    context: IntentContext,
    to send: @escaping @Sendable (IntentAnswer<Response>) async throws -> Void
  ) async throws
}
