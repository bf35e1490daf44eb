internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INCreateTaskListIntent (session 214: a list with a title and its tasks): one resolution result
/// per task title; a folder like a note's.
struct CreateTaskListHandler: IntentHandler {
  typealias Intent = CreateTaskListIntent
  typealias Response = CreateTaskListIntentResponse

  static let intentClass = "INCreateTaskListIntent"
  static var parameters: [IntentParameter<Self>] {
    [
      .value(
        "title", \.title, prompt: "What do you want to call the list?", label: "Title", resolve: Self.resolveTitle),
      .array("taskTitles", \.taskTitles, label: "Tasks", resolve: Self.resolveTaskTitles),
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
    return title.isEmpty ? .needsValue(prompt: "What do you want to call the list?") : .success(.spoken(title))
  }

  func resolveTaskTitles(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<SpeakableString>] {
    ItemResolver.resolveTitles(intent.taskTitles, prompt: nil)
  }

  func resolveGroupName(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpeakableString> {
    let notebook = try await store.read { try await Notebook.load(userID: context.userID, in: $0) }
    return ItemResolver(notebook: notebook, timeZone: context.timeZone).resolveFolder(
      intent.groupName, given: intent.hasGroupName)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let title = intent.title.spokenPhrase.trimmingWhitespace()
    guard !title.isEmpty else { return IntentRefusal(.failure, "noTitle").answer }
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    let folder =
      intent.hasGroupName && !intent.groupName.spokenPhrase.isEmpty
      ? notebook.folder(named: intent.groupName.spokenPhrase).name : ""
    try await TaskListRepository.addFolder(folder, for: context.userID, in: database)
    let now = context.now.epochMilliseconds
    let list = StoredTaskList(
      id: identifiers.next(), userID: context.userID, title: title, folder: folder, createdAt: now, modifiedAt: now)
    try await TaskListRepository.insert(list, in: database)
    var tasks: [StoredTask] = []
    for title in intent.taskTitles.map({ $0.spokenPhrase.trimmingWhitespace() })
    where !title.isEmpty {
      let task = StoredTask(
        id: identifiers.next(), listID: list.id, userID: context.userID, title: title, position: tasks.count,
        createdAt: now, modifiedAt: now)
      try await TaskRepository.insert(task, in: database)
      tasks.append(task)
    }
    var response = Response(code: .success)
    response.createdTaskList = list.taskList(tasks: tasks, in: context.timeZone)
    return IntentAnswer(response)
  }
}
