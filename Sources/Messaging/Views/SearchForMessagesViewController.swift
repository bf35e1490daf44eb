internal import Foundation
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit

/// The messages a search found, drawn: once the search is handled, the first (empty) call claims
/// every search parameter and draws each message found — sender, text, when, unread or not —
/// newest first, at most `shown` of them and how many more. Before the search has run, and in a
/// Maps card, it declines and the host draws the search's parameters.
struct SearchForMessagesViewController: IntentViewController {
  typealias Intent = SearchForMessagesIntent
  typealias Response = SearchForMessagesIntentResponse

  static let intentClass = SearchForMessagesHandler.intentClass
  /// The parameters the list stands for.
  static let claimed = [
    "recipients", "senders", "attributes", "dateTimeRange", "speakableGroupNames", "searchTerms",
  ]
  /// Messages drawn at most; the rest are counted.
  static let shown = 10

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.hostedViewContext != .mapsCard, request.parameters.isEmpty, let response = request.response,
      response.code == .success
    else { return .declined }
    let messages = response.messages
    var rows: [Intentmesh_V1_ViewNode] = [
      .text(Self.title(count: messages.count), role: "header")
    ]
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    formatter.timeZone = request.context.timeZone
    for message in messages.prefix(Self.shown) {
      let sender = message.sender.isMe ? "Me" : message.sender.displayName
      let unread = message.attributes.unread
      rows.append(
        .stack(
          .vertical,
          [
            .text(unread ? "● \(sender)" : sender, role: "subheader"),
            .text(message.content, role: message.sender.isMe ? "bubble-outgoing-sent" : "bubble-incoming"),
            .text(formatter.string(from: message.dateSent.date), role: "caption"),
          ], role: unread ? "message-unread" : "message"))
    }
    if messages.count > Self.shown { rows.append(.text("and \(messages.count - Self.shown) more", role: "caption")) }
    let view = Intentmesh_V1_View.with {
      $0.kind = "messages-list"
      $0.root = .stack(.vertical, rows)
    }
    let width = request.maximumSize.width > 0 ? request.maximumSize.width : 320
    let height = Double(36 + 64 * min(messages.count, Self.shown) + (messages.count > Self.shown ? 20 : 0))
    let parameters = Intentmesh_V1_Parameter.claims(of: Self.intentClass, Self.claimed)
    return .drawn(parameters, view: view, width: width, height: height)
  }

  static func title(count: Int) -> String {
    switch count {
    case 0: "No messages"
    case 1: "1 message"
    default: "\(count) messages"
    }
  }
}
