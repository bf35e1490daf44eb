internal import IntentMeshProtos
package import SQLKit
package import SwiftProtobuf

/// A handler of one intent class (SiriKit's `INSendMessageIntentHandling`): a resolve method per
/// parameter, confirm, and handle. Handlers are stateless: a fresh one is made for every call and all
/// state lives in the domain's store.
package protocol IntentHandler: Sendable {
  /// The intent's parameters, a generated message such as `SendMessageIntent`.
  associatedtype Intent: SwiftProtobuf.Message & Sendable
  /// The intent's typed response, such as `SendMessageIntentResponse`.
  associatedtype Response: IntentResponseMessage

  /// SiriKit's class name, e.g. "INSendMessageIntent".
  static var intentClass: String { get }
  /// The parameters in resolution and display order.
  static var parameters: [IntentParameter<Self>] { get }
  /// Whether the user must confirm before handle (money, irrevocable actions). Default false.
  static var requiresUserConfirmation: Bool { get }
  /// What the host asks when the user must confirm, e.g. "Ready to send it?".
  static var confirmationPrompt: String { get }
  /// Whether handle changes state. Handles with effects are exactly-once per (user, identifier):
  /// the answer is stored with the effect in one transaction. Searches set this to false.
  static var handleHasEffects: Bool { get }
  /// How handle's write transaction runs beside the store's other writes. Default `.serialized`
  /// (alone); `.concurrent` only for a handle whose effects hold by their own statements and that
  /// throws `WriteConflict` when one finds what it read has moved.
  static var handleConcurrency: WriteConcurrency { get }

  /// A dry run of handle. Default: ready.
  func confirm(intent: Intent, context: IntentContext) async throws -> IntentAnswer<Response>

  /// Performs the intent. `database` is the transaction the effect and its stored answer share.
  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> IntentAnswer<Response>
}

extension IntentHandler {
  /// What confirm and handle answer: a response code, its fields, and the user activity.
  package typealias Answer = IntentAnswer<Response>

  package static var requiresUserConfirmation: Bool { false }
  package static var confirmationPrompt: String { "" }
  package static var handleHasEffects: Bool { true }
  package static var handleConcurrency: WriteConcurrency { .serialized }

  package func confirm(intent: Intent, context: IntentContext) async throws -> IntentAnswer<Response> {
    IntentAnswer(.ready)
  }
}
