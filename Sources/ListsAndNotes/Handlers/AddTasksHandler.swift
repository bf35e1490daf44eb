internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// INAddTasksIntent: tasks into a list (a missing list is created once the user agrees), with an
/// optional spatial trigger ("remind me to print the slides when I get to work") or temporal
/// trigger ("remind me to leave work at 5 p.m.").
struct AddTasksHandler: IntentHandler {
  typealias Intent = AddTasksIntent
  typealias Response = AddTasksIntentResponse

  static let intentClass = "INAddTasksIntent"
  /// The list reminders without a list go to.
  static let remindersList = "Reminders"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("targetTaskList", \.targetTaskList, prompt: "Which list?", label: "List", resolve: Self.resolveList),
      .array(
        "taskTitles", \.taskTitles, prompt: "What do you want to add?", label: "Tasks", resolve: Self.resolveTitles),
      .value("spatialEventTrigger", \.spatialEventTrigger, label: "Where", resolve: Self.resolveSpatial),
      .value("temporalEventTrigger", \.temporalEventTrigger, label: "When", resolve: Self.resolveTemporal),
    ]
  }

  let store: any IntentStore
  let identifiers: any IdentifierGenerator

  init(store: any IntentStore, identifiers: any IdentifierGenerator) {
    self.store = store
    self.identifiers = identifiers
  }

  /// A reminder ("remind me to …") needs no list: it goes to Reminders.
  static func isReminder(_ intent: Intent) -> Bool {
    intent.hasSpatialEventTrigger || intent.hasTemporalEventTrigger
  }

  func resolveList(intent: Intent, context: IntentContext) async throws -> ResolutionResult<TaskList> {
    var list = intent.targetTaskList
    if Self.isReminder(intent), list.title.spokenPhrase.isEmpty, list.identifier.isEmpty {
      list.title = .spoken(Self.remindersList)
    }
    let notebook = try await store.read { try await Notebook.load(userID: context.userID, in: $0) }
    let result = ItemResolver(notebook: notebook, timeZone: context.timeZone).resolveList(list)
    if Self.isReminder(intent), list.title.spokenPhrase == Self.remindersList,
      case .confirmationRequired(let value, _, _) = result
    {
      return .success(value)  // The Reminders list is made without asking.
    }
    return result
  }

  func resolveTitles(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<SpeakableString>] {
    ItemResolver.resolveTitles(intent.taskTitles, prompt: "What do you want to add?")
  }

  func resolveSpatial(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpatialEventTrigger> {
    TriggerRules.resolveSpatial(intent.spatialEventTrigger, given: intent.hasSpatialEventTrigger)
  }

  func resolveTemporal(intent: Intent, context: IntentContext) async throws -> ResolutionResult<TemporalEventTrigger> {
    TriggerRules.resolveTemporal(intent.temporalEventTrigger, given: intent.hasTemporalEventTrigger, context: context)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let titles = intent.taskTitles.map { $0.spokenPhrase.trimmingWhitespace() }.filter {
      !$0.isEmpty
    }
    guard !titles.isEmpty else { return IntentRefusal(.failure, "noTasks").answer }
    if intent.hasTemporalEventTrigger,
      case .unsupported = TriggerRules.resolveTemporal(intent.temporalEventTrigger, given: true, context: context)
    {
      return IntentRefusal(.failure, "invalidTemporalTrigger").answer
    }
    if intent.hasSpatialEventTrigger,
      case .unsupported = TriggerRules.resolveSpatial(intent.spatialEventTrigger, given: true)
    {
      return IntentRefusal(.failure, "invalidSpatialTrigger").answer
    }
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    var target = intent.targetTaskList
    if Self.isReminder(intent), target.title.spokenPhrase.isEmpty, target.identifier.isEmpty {
      target.title = .spoken(Self.remindersList)
    }
    let resolver = ItemResolver(notebook: notebook, timeZone: context.timeZone)
    let found = resolver.lists(named: target.title, identifier: target.identifier)
    let now = context.now.epochMilliseconds
    let list: StoredTaskList
    switch found.count {
    case 1: list = found[0]
    case 0:
      // Confirmed by the user (list_should_be_created), or the Reminders list.
      let title = target.title.spokenPhrase.trimmingCharacters(in: .whitespaces)
      guard !title.isEmpty else { return IntentRefusal(.failure, "unresolvedList").answer }
      list = StoredTaskList(
        id: identifiers.next(), userID: context.userID, title: title, createdAt: now, modifiedAt: now)
      try await TaskListRepository.insert(list, in: database)
    default: return IntentRefusal(.failure, "ambiguousList").answer
    }
    let existing = notebook.tasks.filter { $0.listID == list.id }
    let due =
      intent.hasTemporalEventTrigger
      ? TriggerRules.dueAt(intent.temporalEventTrigger, context: context).map(\.epochMilliseconds) : nil
    var added: [StoredTask] = []
    for title in titles {
      let task = StoredTask(
        id: identifiers.next(), listID: list.id, userID: context.userID, title: title,
        position: existing.count + added.count,
        spatialTrigger: intent.hasSpatialEventTrigger ? intent.spatialEventTrigger : nil,
        temporalTrigger: intent.hasTemporalEventTrigger ? intent.temporalEventTrigger : nil, dueAt: due,
        createdAt: now, modifiedAt: now)
      try await TaskRepository.insert(task, in: database)
      added.append(task)
    }
    try await TaskListRepository.touch(list.id, at: now, in: database)
    var modified = list
    modified.modifiedAt = now
    var response = Response(code: .success)
    response.modifiedTaskList = modified.taskList(tasks: existing + added, in: context.timeZone)
    response.addedTasks = added.map { $0.task(in: context.timeZone) }
    return IntentAnswer(response)
  }
}
