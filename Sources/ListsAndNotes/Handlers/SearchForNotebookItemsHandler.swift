internal import Foundation
internal import Logging
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit

/// INSearchForNotebookItemsIntent ("show the notes I created yesterday", "show my completed
/// tasks"), and reminders coming due: its live updates (`StartSendingUpdates`) send the tasks whose
/// temporal trigger comes due, on the domain's clock, as they come due, until the client leaves.
struct SearchForNotebookItemsHandler: LiveUpdatingIntentHandler {
  typealias Intent = SearchForNotebookItemsIntent
  typealias Response = SearchForNotebookItemsIntentResponse

  static let intentClass = "INSearchForNotebookItemsIntent"
  static let handleHasEffects = false
  /// How often a reminders stream looks whether firings wait for it (a place entered or left,
  /// another replica's), on the domain's clock: one indexed read.
  static let pollInterval: TimeInterval = 1
  /// How often it reads the reminders again for ones added since (their times are known between).
  static let rescanInterval: TimeInterval = 60
  static var parameters: [IntentParameter<Self>] {
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

  init(store: any IntentStore, clock: any DomainClock) {
    self.store = store
    self.clock = clock
  }

  func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
    let notebook = try await Notebook.load(userID: context.userID, in: database)
    return IntentAnswer(NotebookSearch(intent: intent, context: context).response(in: notebook))
  }

  /// The reminders that fired and wait (possibly while no stream was open) at once, then each batch
  /// that fires — on the clock, or because the user entered or left a place — until the client
  /// leaves. Each firing reaches one stream once, in order; one the stream could not send waits
  /// for the next.
  func startSendingUpdates(
    for intent: Intent, context: IntentContext,
    to send: @escaping @Sendable (Answer) async throws -> Void
  ) async throws {
    let userID = context.userID
    var first = true
    var schedule = ReminderSchedule(reminders: [], timeZone: context.timeZone)
    var nextDue: Date? = nil
    var rescanAt = Date.distantPast
    while true {
      let now = clock.now()
      // Cheap each poll: is anything waiting (a place fired, another replica recorded)? The
      // reminders themselves are read again only when one comes due, or every rescan interval.
      let waiting = try await store.read { try await ReminderInbox.hasWaiting(userID: userID, in: $0) }
      if first || waiting || nextDue.map({ $0 <= now }) == true || now >= rescanAt {
        let (read, claimed) = try await store.write { database in
          (
            try await ReminderInbox.recordDue(userID: userID, timeZone: context.timeZone, now: now, in: database),
            try await ReminderInbox.claim(userID: userID, in: database)
          )
        }
        schedule = read
        nextDue = schedule.next(after: now)
        rescanAt = now.addingTimeInterval(Self.rescanInterval)
        if first || !claimed.isEmpty {
          var response = Response(code: .success)
          response.sortType = .byDate
          response.tasks = claimed.map { $0.task.task(in: context.timeZone) }
          do {
            try await send(IntentAnswer(response))
          } catch {
            let firings = claimed.map(\.firing)
            try? await store.write { try await ReminderInbox.unclaim(firings, of: userID, in: $0) }
            throw error
          }
          first = false
        }
      }
      let poll = now.addingTimeInterval(Self.pollInterval)
      try await clock.sleep(until: min(nextDue ?? poll, poll))
    }
  }
}
