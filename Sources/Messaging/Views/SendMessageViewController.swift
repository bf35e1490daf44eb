internal import Foundation
internal import MessagingProtos
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit

/// The chat-transcript view of session 225's UnicornChat demo: on the first (empty) call it claims
/// the message parameters and draws them as a chat bubble — a draft before handle, sent after.
/// In a Maps card it declines, and the host draws its default view.
struct SendMessageViewController: IntentViewController {
  typealias Intent = SendMessageIntent
  typealias Response = SendMessageIntentResponse

  static let intentClass = SendMessageHandler.intentClass
  /// The parameters the transcript draws.
  static let claimed = ["recipients", "content", "speakableGroupName"]

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.hostedViewContext != .mapsCard else { return .declined }
    guard request.parameters.isEmpty else {
      // Everything this view draws was claimed on the first call; other parameters get the default view.
      return .declined
    }
    let intent = request.intent
    let names = intent.recipients.map(PersonResolver.spokenName).filter { !$0.isEmpty }
    let state = request.isDraft ? "draft" : "sent"
    var rows: [Intentmesh_V1_ViewNode] = [
      .text("To: \(names.isEmpty ? "—" : SendMessageHandler.list(names))", role: "header", parameter: "recipients")
    ]
    if intent.hasSpeakableGroupName, !intent.speakableGroupName.spokenPhrase.isEmpty {
      rows.append(.text(intent.speakableGroupName.spokenPhrase, role: "subheader", parameter: "speakableGroupName"))
    }
    rows.append(.text(intent.content, role: "bubble-outgoing-\(state)", parameter: "content"))
    rows.append(.text(request.isDraft ? "Draft" : "Sent", role: "caption"))
    let view = Intentmesh_V1_View.with {
      $0.kind = "chat-transcript"
      $0.root = .stack(.vertical, rows)
    }
    let lines = max(1, (intent.content.count + 31) / 32)
    let width = request.maximumSize.width > 0 ? request.maximumSize.width : 320
    let height = Double(56 + 22 * lines + (rows.count > 3 ? 20 : 0))
    let parameters = Intentmesh_V1_Parameter.claims(of: Self.intentClass, Self.claimed)
    return .drawn(parameters, view: view, width: width, height: height)
  }
}
