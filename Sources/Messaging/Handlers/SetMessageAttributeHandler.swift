internal import Foundation
internal import Logging
internal import IntentMeshProtos
internal import SwiftProtobuf
internal import MessagingProtos
internal import IntentsKit
internal import SQLKit

/// INSetMessageAttributeIntent: marks the user's messages read, unread, flagged, unflagged or played.
struct SetMessageAttributeHandler: IntentHandler {
  typealias Intent = SetMessageAttributeIntent
  typealias Response = SetMessageAttributeIntentResponse

  static let intentClass = "INSetMessageAttributeIntent"
  static var parameters: [IntentParameter<Self>] {
    [
      .array("identifiers", \.identifiers, label: "Messages"),
      .value("attribute", \.attribute, prompt: "Mark them as what?", label: "Mark as", resolve: Self.resolveAttribute),
    ]
  }

  let store: any IntentStore

  init(store: any IntentStore) {
    self.store = store
  }

  func resolveAttribute(intent: Intent, context: IntentContext) async throws -> ResolutionResult<MessageAttribute> {
    switch intent.attribute {
    case .unspecified: return .needsValue(prompt: "Mark them as read, unread, flagged or unflagged?")
    case .UNRECOGNIZED(let number):
      return .unsupported(ResolutionReason(message: "Message attribute \(number) is unknown to UnicornChat."))
    default: return .success(intent.attribute)
    }
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    let account = try await store.read { try await MessagingAccountRepository.account(of: context.userID, in: $0) }
    switch AccountCheck.check(account) {
    case .needsAppLaunch(let activity): return IntentAnswer(code: .failureRequiringAppLaunch, userActivity: activity)
    case .serviceNotAvailable: return IntentAnswer(code: .failure)
    case .ready: return IntentAnswer(code: .ready)
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    if case .needsAppLaunch(let activity) = AccountCheck.check(
      try await MessagingAccountRepository.account(of: context.userID, in: database))
    {
      return IntentAnswer(code: .failureRequiringAppLaunch, userActivity: activity)
    }
    let wanted = Array(Set(intent.identifiers))
    let found = try await MessageRepository.messages(withIDs: wanted, of: context.userID, in: database)
    guard !wanted.isEmpty, found.count == wanted.count else {
      let missing = wanted.filter { id in !found.contains { $0.id == id } }
      return IntentAnswer(
        code: .failureMessageNotFound,
        userActivity: UserActivityDraft(userInfo: ["missing": missing.sorted().joined(separator: ",")]))
    }
    var updated: [StoredMessage] = []
    for var message in found {
      switch intent.attribute {
      case .read: message.isRead = true
      case .unread: message.isRead = false
      case .flagged: message.isFlagged = true
      case .unflagged: message.isFlagged = false
      case .played:
        guard message.messageType == Intentmesh_Messaging_V1_MessageType.audio.rawValue else {
          return IntentAnswer(
            code: .failureMessageAttributeNotSet,
            userActivity: UserActivityDraft(userInfo: ["reason": "only audio messages can be marked played"]))
        }
        message.isPlayed = true
      default:
        return IntentAnswer(code: .failureMessageAttributeNotSet)
      }
      updated.append(message)
    }
    for message in updated { try await MessageRepository.updateFlags(of: message, in: database) }
    return IntentAnswer(code: .success)
  }
}
