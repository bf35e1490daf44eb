internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INSetTaskAttributeIntent: marks a task done or not done, or gives it new triggers.
struct SetTaskAttributeHandler: IntentHandler {
  typealias Intent = SetTaskAttributeIntent
  typealias Response = SetTaskAttributeIntentResponse

  static let intentClass = "INSetTaskAttributeIntent"
  static var parameters: [IntentParameter<Self>] {
    [
      .value("targetTask", \.targetTask, prompt: "Which task?", label: "Task", resolve: Self.resolveTask),
      .value("status", \.status, label: "Status"),
      .value("spatialEventTrigger", \.spatialEventTrigger, label: "Where", resolve: Self.resolveSpatial),
      .value("temporalEventTrigger", \.temporalEventTrigger, label: "When", resolve: Self.resolveTemporal),
    ]
  }

  let store: any IntentStore

  init(store: any IntentStore) { self.store = store }

  func resolveTask(intent: Intent, context: IntentContext) async throws -> ResolutionResult<NotebookTask> {
    let notebook = try await store.read { try await Notebook.load(userID: context.userID, in: $0) }
    return ItemResolver(notebook: notebook, timeZone: context.timeZone).resolveTask(intent.targetTask)
  }

  func resolveSpatial(intent: Intent, context: IntentContext) async throws -> ResolutionResult<SpatialEventTrigger> {
    TriggerRules.resolveSpatial(intent.spatialEventTrigger, given: intent.hasSpatialEventTrigger)
  }

  func resolveTemporal(intent: Intent, context: IntentContext) async throws -> ResolutionResult<TemporalEventTrigger> {
    TriggerRules.resolveTemporal(intent.temporalEventTrigger, given: intent.hasTemporalEventTrigger, context: context)
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    let found = ItemResolver(notebook: notebook, timeZone: context.timeZone).tasks(
      named: intent.targetTask.title, identifier: intent.targetTask.identifier)
    guard found.count == 1, var task = found.first else { return IntentRefusal(.failure, "unresolvedTask").answer }
    guard intent.status != .unspecified || intent.hasSpatialEventTrigger || intent.hasTemporalEventTrigger else {
      return IntentRefusal(.failure, "nothingToChange").answer
    }
    if intent.status != .unspecified { task.status = intent.status }
    if intent.hasSpatialEventTrigger {
      guard case .success = TriggerRules.resolveSpatial(intent.spatialEventTrigger, given: true) else {
        return IntentRefusal(.failure, "invalidSpatialTrigger").answer
      }
      task.spatialTrigger = intent.spatialEventTrigger
    }
    if intent.hasTemporalEventTrigger {
      guard case .success = TriggerRules.resolveTemporal(intent.temporalEventTrigger, given: true, context: context)
      else { return IntentRefusal(.failure, "invalidTemporalTrigger").answer }
      task.temporalTrigger = intent.temporalEventTrigger
      task.dueAt = TriggerRules.dueAt(intent.temporalEventTrigger, context: context).map(\.epochMilliseconds)
    }
    task.modifiedAt = context.now.epochMilliseconds
    try await TaskRepository.update(task, in: database)
    try await TaskListRepository.touch(task.listID, at: task.modifiedAt, in: database)
    var response = Response(code: .success)
    response.modifiedTask = task.task(in: context.timeZone)
    return IntentAnswer(response)
  }
}
