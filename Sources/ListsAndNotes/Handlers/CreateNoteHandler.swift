internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INCreateNoteIntent (session 214: a note with title, content and folder): only a title makes an
/// empty note; text or image content is stored; the folder is an existing one or a new one.
struct CreateNoteHandler: IntentHandler {
  typealias Intent = CreateNoteIntent
  typealias Response = CreateNoteIntentResponse

  static let intentClass = "INCreateNoteIntent"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("title", \.title, prompt: "What do you want to call it?", label: "Title", resolve: Self.resolveTitle),
      .value("content", \.content, label: "Content", resolve: Self.resolveContent),
      .value("groupName", \.groupName, label: "Folder", resolve: Self.resolveGroupName),
    ]
  }

  let store: any IntentStore
  let identifiers: any IdentifierGenerator

  init(store: any IntentStore, identifiers: any IdentifierGenerator) {
    self.store = store
    self.identifiers = identifiers
  }

  func resolveTitle(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    let title = intent.title.spokenPhrase.trimmingWhitespace()
    return title.isEmpty ? .needsValue(prompt: "What do you want to call it?") : .success(.spoken(title))
  }

  func resolveContent(intent: Intent, context: IntentContext) async throws -> ResolutionResult<NoteContent> {
    switch intent.content.content {
    case .none: return .notRequired
    case .text(let text):
      return text.isEmpty ? .notRequired : .success(intent.content)
    case .image(let image):
      return image.data.isEmpty && image.url.isEmpty
        ? .unsupported(ResolutionReason(message: "That image has no data.")) : .success(intent.content)
    }
  }

  func resolveGroupName(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    let notebook = try await store.read { try await Notebook.load(userID: context.userID, in: $0) }
    return ItemResolver(notebook: notebook, timeZone: context.timeZone).resolveFolder(
      intent.groupName, given: intent.hasGroupName)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let title = intent.title.spokenPhrase.trimmingWhitespace()
    guard !title.isEmpty else {
      return IntentAnswer(code: .failure, userActivity: UserActivityDraft(userInfo: ["error": "noTitle"]))
    }
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    let folder =
      intent.hasGroupName && !intent.groupName.spokenPhrase.isEmpty
      ? notebook.folder(named: intent.groupName.spokenPhrase).name : ""
    try await TaskListRepository.addFolder(folder, for: context.userID, in: database)
    let now = context.now.epochMilliseconds
    let hasContent = intent.hasContent && intent.content.content != nil && intent.content.displayText != ""
    let note = StoredNote(
      id: identifiers.next(), userID: context.userID, title: title, folder: folder,
      contents: hasContent ? [intent.content] : [], createdAt: now, modifiedAt: now)
    try await NoteRepository.insert(note, in: database)
    var response = Response(code: .success)
    response.createdNote = note.note(in: context.timeZone)
    return IntentAnswer(response)
  }
}
