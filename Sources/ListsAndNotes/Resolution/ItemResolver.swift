internal import Foundation
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// Finds the notes, lists and tasks a spoken title (or identifier) names in a notebook.
struct ItemResolver: Sendable {
  let notebook: Notebook
  let timeZone: TimeZone

  init(notebook: Notebook, timeZone: TimeZone) {
    self.notebook = notebook
    self.timeZone = timeZone
  }

  func notes(named title: SpeakableString, identifier: String = "") -> [StoredNote] {
    if !identifier.isEmpty { return notebook.notes.filter { $0.id == identifier } }
    return notebook.notes.filter { notebook.names(title, title: $0.title, id: $0.id) }
  }

  func lists(named title: SpeakableString, identifier: String = "") -> [StoredTaskList] {
    if !identifier.isEmpty { return notebook.lists.filter { $0.id == identifier } }
    return notebook.lists.filter { notebook.names(title, title: $0.title, id: $0.id) }
  }

  func tasks(named title: SpeakableString, identifier: String = "") -> [StoredTask] {
    if !identifier.isEmpty { return notebook.tasks.filter { $0.id == identifier } }
    return notebook.tasks.filter { notebook.names(title, title: $0.title, id: $0.id) }
  }

  /// AppendToNote's target: one → success; several → "Which …?"; none → unsupported; nothing named →
  /// needs value.
  func resolveNote(_ note: Note) -> ResolutionResult<Note> {
    guard !note.title.spokenPhrase.isEmpty || !note.identifier.isEmpty || !note.title.vocabularyIdentifier.isEmpty
    else { return .needsValue(prompt: "Which note?") }
    let found = notes(named: note.title, identifier: note.identifier)
    switch found.count {
    case 0: return .unsupported(ResolutionReason(message: "You have no note called \(note.title.spokenPhrase)."))
    case 1: return .success(found[0].note(in: timeZone))
    default: return .disambiguation(found.map { $0.note(in: timeZone) }, prompt: "Which \(note.title.spokenPhrase)?")
    }
  }

  /// AddTasks' target list: one → success; several → disambiguation; none → confirmation that a
  /// new list should be created; nothing named → needs value.
  func resolveList(_ list: TaskList) -> ResolutionResult<TaskList> {
    let title = list.title.spokenPhrase.trimmingCharacters(in: .whitespaces)
    guard !title.isEmpty || !list.identifier.isEmpty || !list.title.vocabularyIdentifier.isEmpty else {
      return .needsValue(prompt: "Which list?")
    }
    let found = lists(named: list.title, identifier: list.identifier)
    switch found.count {
    case 0:
      guard !title.isEmpty else { return .unsupported(ResolutionReason(message: "That list no longer exists.")) }
      return .confirmationRequired(
        .with { $0.title = .spoken(title) },
        reason: ResolutionReason(
          TaskListConfirmationReason.listShouldBeCreated, "You have no list called \(title)."),
        prompt: "You have no list called \(title). Do you want to create it?")
    case 1: return .success(found[0].taskList(tasks: notebook.tasks, in: timeZone))
    default:
      return .disambiguation(
        found.map { $0.taskList(tasks: notebook.tasks, in: timeZone) }, prompt: "Which \(title) list?")
    }
  }

  /// SetTaskAttribute's target task.
  func resolveTask(_ task: NotebookTask) -> ResolutionResult<NotebookTask> {
    guard !task.title.spokenPhrase.isEmpty || !task.identifier.isEmpty || !task.title.vocabularyIdentifier.isEmpty
    else { return .needsValue(prompt: "Which task?") }
    let found = tasks(named: task.title, identifier: task.identifier)
    switch found.count {
    case 0: return .unsupported(ResolutionReason(message: "You have no task called \(task.title.spokenPhrase)."))
    case 1: return .success(found[0].task(in: timeZone))
    default:
      return .disambiguation(found.map { $0.task(in: timeZone) }, prompt: "Which \(task.title.spokenPhrase)?")
    }
  }

  /// A folder (group name): an existing one → success with its name; a new one → success as said.
  func resolveFolder(_ name: SpeakableString, given: Bool) -> ResolutionResult<SpeakableString> {
    guard given, !name.spokenPhrase.trimmingCharacters(in: .whitespaces).isEmpty else { return .notRequired }
    return .success(.spoken(notebook.folder(named: name.spokenPhrase).name))
  }

  /// One result per task title: a title → success, a blank one → unsupported.
  static func resolveTitles(_ titles: [SpeakableString], prompt: String?) -> [ResolutionResult<SpeakableString>] {
    guard !titles.isEmpty else { return [prompt.map { .needsValue(prompt: $0) } ?? .notRequired] }
    return titles.map { title in
      let text = title.spokenPhrase.trimmingWhitespace()
      return text.isEmpty ? .unsupported(ResolutionReason(message: "A task needs a title.")) : .success(.spoken(text))
    }
  }
}
