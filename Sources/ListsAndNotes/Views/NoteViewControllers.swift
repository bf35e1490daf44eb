internal import Foundation
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The note card of a note being created: title, folder and content, claimed on the first call.
struct CreateNoteViewController: IntentViewController {
  typealias Intent = CreateNoteIntent
  typealias Response = CreateNoteIntentResponse

  static let intentClass = CreateNoteHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    if let note = request.response?.createdNote, request.response?.hasCreatedNote == true {
      return NotebookCards.note(
        title: note.title.spokenPhrase, folder: note.groupName.spokenPhrase, contents: note.contents, isDraft: false,
        claiming: NotebookCards.claim(Self.intentClass, ["title", "content", "groupName"]),
        width: request.maximumSize.width)
    }
    let intent = request.intent
    return NotebookCards.note(
      title: intent.title.spokenPhrase, folder: intent.groupName.spokenPhrase,
      contents: intent.hasContent ? [intent.content] : [], isDraft: true,
      claiming: NotebookCards.claim(Self.intentClass, ["title", "content", "groupName"]),
      width: request.maximumSize.width)
  }
}

/// The note card of a note being appended to: the note with its new content.
struct AppendToNoteViewController: IntentViewController {
  typealias Intent = AppendToNoteIntent
  typealias Response = AppendToNoteIntentResponse

  static let intentClass = AppendToNoteHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    let claimed = NotebookCards.claim(Self.intentClass, ["targetNote", "content"])
    if let response = request.response, response.hasNote {
      return NotebookCards.note(
        title: response.note.title.spokenPhrase, folder: response.note.groupName.spokenPhrase,
        contents: response.note.contents, isDraft: false, claiming: claimed, width: request.maximumSize.width)
    }
    let note = request.intent.targetNote
    guard !note.title.spokenPhrase.isEmpty else { return .declined }
    return NotebookCards.note(
      title: note.title.spokenPhrase, folder: note.groupName.spokenPhrase,
      contents: note.contents + (request.intent.hasContent ? [request.intent.content] : []), isDraft: true,
      claiming: claimed, width: request.maximumSize.width)
  }
}
