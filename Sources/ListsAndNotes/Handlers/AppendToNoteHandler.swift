internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INAppendToNoteIntent: adds content to the note a title names. A password-protected note cannot
/// be changed through Siri.
struct AppendToNoteHandler: IntentHandler {
  typealias Intent = AppendToNoteIntent
  typealias Response = AppendToNoteIntentResponse

  static let intentClass = "INAppendToNoteIntent"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("targetNote", \.targetNote, prompt: "Which note?", label: "Note", resolve: Self.resolveTargetNote),
      .value(
        "content", \.content, prompt: "What do you want to add?", label: "Content", resolve: Self.resolveContent),
    ]
  }

  let store: any IntentStore

  init(store: any IntentStore) { self.store = store }

  func resolveTargetNote(intent: Intent, context: IntentContext) async throws -> ResolutionResult<Note> {
    let notebook = try await store.read { try await Notebook.load(userID: context.userID, in: $0) }
    return ItemResolver(notebook: notebook, timeZone: context.timeZone).resolveNote(intent.targetNote)
  }

  func resolveContent(intent: Intent, context: IntentContext) async throws -> ResolutionResult<NoteContent> {
    intent.content.displayText.trimmingCharacters(in: .whitespaces).isEmpty
      ? .needsValue(prompt: "What do you want to add?") : .success(intent.content)
  }

  func target(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Result<
    StoredNote, IntentRefusal<Response>
  > {
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    let found = ItemResolver(notebook: notebook, timeZone: context.timeZone).notes(
      named: intent.targetNote.title, identifier: intent.targetNote.identifier)
    guard found.count == 1 else { return .failure(IntentRefusal(.failure, "unresolvedNote")) }
    guard !found[0].passwordProtected else {
      return .failure(IntentRefusal(.failureCannotUpdatePasswordProtectedNote, "passwordProtected"))
    }
    guard !intent.content.displayText.isEmpty else { return .failure(IntentRefusal(.failure, "noContent")) }
    return .success(found[0])
  }

  func confirm(intent: Intent, context: IntentContext) async throws -> Answer {
    try await store.read { database in
      switch try await target(intent: intent, context: context, database: database) {
      case .failure(let refused): return refused.answer
      case .success: return IntentAnswer(code: .ready)
      }
    }
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    switch try await target(intent: intent, context: context, database: database) {
    case .failure(let refused): return refused.answer
    case .success(var note):
      note.contents.append(intent.content)
      note.modifiedAt = context.now.epochMilliseconds
      try await NoteRepository.update(note, in: database)
      var response = Response(code: .success)
      response.note = note.note(in: context.timeZone)
      return IntentAnswer(response)
    }
  }
}
