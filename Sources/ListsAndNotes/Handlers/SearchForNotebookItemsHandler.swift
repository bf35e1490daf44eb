package import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
package import IntentsKit
package import SQLKit

/// INSearchForNotebookItemsIntent ("show the notes I created yesterday", "show my completed
/// tasks"), and reminders coming due: its live updates (`StartSendingUpdates`) send the tasks whose
/// temporal trigger comes due, on the domain's clock, as they come due, until the client leaves.
package struct SearchForNotebookItemsHandler: LiveUpdatingIntentHandler {
  package typealias Intent = SearchForNotebookItemsIntent
  package typealias Response = SearchForNotebookItemsIntentResponse

  package static let intentClass = "INSearchForNotebookItemsIntent"
  package static let handleHasEffects = false
  /// How often a reminders stream looks for reminders added since it last looked.
  package static let rescanInterval: TimeInterval = 60
  package static var parameters: [IntentParameter<Self>] {
    [
      .value("title", \.title, label: "Title"),
      .value("content", \.content, label: "Content"),
      .value("itemType", \.itemType, label: "Type"),
      .value("status", \.status, label: "Status"),
      .value("location", \.location, label: "Location"),
      .value("locationSearchType", \.locationSearchType, label: "Location search"),
      .value("dateTime", \.dateTime, label: "Date"),
      .value("dateSearchType", \.dateSearchType, label: "Date search"),
      .value("notebookItemIdentifier", \.notebookItemIdentifier, label: "Item"),
    ]
  }

  let store: any IntentStore
  let clock: any DomainClock

  package init(store: any IntentStore, clock: any DomainClock) {
    self.store = store
    self.clock = clock
  }

  package func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> IntentAnswer<
    Response
  > {
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    return IntentAnswer(NotebookSearch(intent: intent, context: context).response(in: notebook))
  }

  /// First the reminders already due, then each batch that comes due, until the client leaves.
  package func startSendingUpdates(
    for intent: Intent, context: IntentContext,
    to send: @escaping @Sendable (IntentAnswer<Response>) async throws -> Void
  ) async throws {
    let userID = context.userID
    var checked: Date = .distantPast
    while true {
      let now = clock.now()
      let reminders = try await store.read { try await TaskBook.reminders(of: userID, in: $0) }
      let schedule = ReminderSchedule(reminders: reminders, timeZone: context.timeZone)
      let due = schedule.due(after: checked, through: now)
      if checked == .distantPast || !due.isEmpty {
        var response = Response(code: .success)
        response.sortType = .byDate
        response.tasks = due.map { $0.task(in: context.timeZone) }
        try await send(IntentAnswer(response))
      }
      checked = now
      let rescan = now.addingTimeInterval(Self.rescanInterval)
      try await clock.sleep(until: min(schedule.next(after: now) ?? rescan, rescan))
    }
  }
}
