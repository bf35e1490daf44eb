internal import Foundation
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit

/// The task-list card of a list being created.
struct CreateTaskListViewController: IntentViewController {
  typealias Intent = CreateTaskListIntent
  typealias Response = CreateTaskListIntentResponse

  static let intentClass = CreateTaskListHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    let claimed = NotebookCards.claim(Self.intentClass, ["title", "taskTitles"])
    if let response = request.response, response.hasCreatedTaskList {
      let list = response.createdTaskList
      return NotebookCards.taskList(
        title: list.title.spokenPhrase, tasks: list.tasks.map { ($0.title.spokenPhrase, $0.status == .completed) },
        isDraft: false, claiming: claimed, width: request.maximumSize.width)
    }
    return NotebookCards.taskList(
      title: request.intent.title.spokenPhrase, tasks: request.intent.taskTitles.map { ($0.spokenPhrase, false) },
      isDraft: true, claiming: claimed, width: request.maximumSize.width)
  }
}

/// The task-list card of tasks being added: the list with its new tasks.
struct AddTasksViewController: IntentViewController {
  typealias Intent = AddTasksIntent
  typealias Response = AddTasksIntentResponse

  static let intentClass = AddTasksHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty else { return .declined }
    let claimed = NotebookCards.claim(Self.intentClass, ["targetTaskList", "taskTitles"])
    if let response = request.response, response.hasModifiedTaskList {
      let list = response.modifiedTaskList
      return NotebookCards.taskList(
        title: list.title.spokenPhrase, tasks: list.tasks.map { ($0.title.spokenPhrase, $0.status == .completed) },
        isDraft: false, claiming: claimed, width: request.maximumSize.width)
    }
    let list = request.intent.targetTaskList
    let existing = list.tasks.map { ($0.title.spokenPhrase, $0.status == .completed) }
    let title = list.title.spokenPhrase.isEmpty ? AddTasksHandler.remindersList : list.title.spokenPhrase
    return NotebookCards.taskList(
      title: title, tasks: existing + request.intent.taskTitles.map { ($0.spokenPhrase, false) }, isDraft: true,
      claiming: claimed, width: request.maximumSize.width)
  }
}

/// Search results as a list: notes, lists and tasks, in the order the response gives.
struct SearchResultsViewController: IntentViewController {
  typealias Intent = SearchForNotebookItemsIntent
  typealias Response = SearchForNotebookItemsIntentResponse

  static let intentClass = SearchForNotebookItemsHandler.intentClass

  init() {}

  func configureView(_ request: ViewRequest<Intent, Response>) async throws -> ViewConfiguration {
    guard request.parameters.isEmpty, let response = request.response else { return .declined }
    var rows: [Intentmesh_V1_ViewNode] = []
    rows += response.notes.map { .row("Note", $0.title.spokenPhrase) }
    rows += response.taskLists.map { .row("List", "\($0.title.spokenPhrase) (\($0.tasks.count))") }
    rows += response.tasks.map { .row($0.status == .completed ? "☑" : "☐", $0.title.spokenPhrase) }
    if rows.isEmpty { rows = [.text("Nothing found", role: "caption")] }
    let claimed = NotebookCards.claim(Self.intentClass, ["title", "content", "itemType", "status", "dateTime"])
    return .drawn(
      claimed,
      view: .with {
        $0.kind = "search-results"
        $0.root = .stack(.vertical, rows)
      }, width: request.maximumSize.width > 0 ? request.maximumSize.width : 320, height: Double(16 + 28 * rows.count))
  }
}
