internal import Foundation
internal import SwiftProtobuf
internal import ListsAndNotesProtos
internal import IntentMeshProtos
internal import IntentsKit
internal import IntentMeshCore

/// SearchForNotebookItems' filters over a notebook: title, content, item type, status, location
/// trigger, date range by created / modified / due date, identifier; sorted by that date when one
/// is asked for, otherwise in the app's order (as is).
struct NotebookSearch: Sendable {
  let intent: SearchForNotebookItemsIntent
  let context: IntentContext

  init(intent: SearchForNotebookItemsIntent, context: IntentContext) {
    self.intent = intent
    self.context = context
  }

  /// The kinds of item the search can return.
  var kinds: Set<NotebookItemType> {
    if intent.itemType != .unspecified { return [intent.itemType] }
    // A status, a place or a due date only tasks have.
    if intent.status != .unspecified || intent.hasLocation || intent.dateSearchType == .byDueDate { return [.task] }
    return [.note, .taskList, .task]
  }

  func titleMatches(_ title: String, id: String, notebook: Notebook) -> Bool {
    guard intent.hasTitle, !intent.title.spokenPhrase.isEmpty || !intent.title.vocabularyIdentifier.isEmpty else {
      return true
    }
    // An identified title means that item only.
    if !intent.title.vocabularyIdentifier.isEmpty { return notebook.names(intent.title, title: title, id: id) }
    if notebook.names(intent.title, title: title, id: id) { return true }
    return NameMatching.normalized(title).contains(NameMatching.normalized(intent.title.spokenPhrase))
  }

  func contentMatches(_ text: String) -> Bool {
    intent.content.isEmpty || text.range(of: intent.content, options: [.caseInsensitive, .diacriticInsensitive]) != nil
  }

  /// Whether `date` (milliseconds) falls in the asked range; no range → true.
  func inRange(_ milliseconds: Int64) -> Bool {
    guard intent.hasDateTime else { return true }
    let interval = CalendarDates.interval(of: intent.dateTime, timeZone: context.timeZone, reference: context.now)
    let date = Date(epochMilliseconds: milliseconds)
    if let start = interval.start, date < start { return false }
    if let end = interval.end, date > end { return false }
    return true
  }

  /// The moment of `task` the search is about: created, modified, or (first) due in the range.
  func moment(of task: StoredTask) -> Int64? {
    switch intent.dateSearchType {
    case .byModifiedDate: return task.modifiedAt
    case .byDueDate:
      // The first due moment was fixed when the reminder was made; a search must not re-read
      // "at 5 p.m." as 5 p.m. on the day of the search.
      guard let trigger = task.temporalTrigger, let dueAt = task.dueAt else { return nil }
      let start = Date(epochMilliseconds: dueAt)
      let range = trigger.dateComponentsRange
      let interval = CalendarDates.interval(of: intent.dateTime, timeZone: context.timeZone, reference: context.now)
      let after = (interval.start ?? .distantPast).addingTimeInterval(-0.001)
      let through = intent.hasDateTime ? (interval.end ?? .distantFuture) : .distantFuture
      return Recurrence.occurrences(
        start: start, rule: range.hasRecurrenceRule ? range.recurrenceRule : nil, timeZone: context.timeZone,
        after: after, through: through, limit: 1
      ).first.map(\.epochMilliseconds)
    default: return task.createdAt
    }
  }

  func atLocation(_ task: StoredTask) -> Bool {
    guard intent.hasLocation else { return true }
    guard let trigger = task.spatialTrigger else { return false }
    let asked = intent.location
    if !asked.name.isEmpty, NameMatching.matches(asked.name, trigger.placemark.name) { return true }
    if asked.hasLocation, trigger.placemark.hasLocation {
      let dLat = (asked.location.latitude - trigger.placemark.location.latitude) * 111_000
      let dLon =
        (asked.location.longitude - trigger.placemark.location.longitude) * 111_000
        * cos(asked.location.latitude * .pi / 180)
      return (dLat * dLat + dLon * dLon).squareRoot() <= 200
    }
    return false
  }

  func response(in notebook: Notebook) -> SearchForNotebookItemsIntentResponse {
    let identifier = intent.notebookItemIdentifier
    let bySort = intent.dateSearchType != .unspecified
    var response = SearchForNotebookItemsIntentResponse(code: .success)
    response.sortType = bySort ? .byDate : .asIs
    if kinds.contains(.note) {
      let key: (StoredNote) -> Int64 = intent.dateSearchType == .byModifiedDate ? { $0.modifiedAt } : { $0.createdAt }
      var notes = notebook.notes.filter { note in
        (identifier.isEmpty || note.id == identifier) && titleMatches(note.title, id: note.id, notebook: notebook)
          && contentMatches(note.passwordProtected ? "" : note.text) && inRange(key(note))
      }
      if bySort { notes.sort { key($0) < key($1) } }
      response.notes = notes.map { $0.note(in: context.timeZone) }
    }
    if kinds.contains(.taskList) {
      let lists = notebook.lists.filter { list in
        let tasks = notebook.tasks.filter { $0.listID == list.id }
        return (identifier.isEmpty || list.id == identifier)
          && titleMatches(list.title, id: list.id, notebook: notebook)
          && contentMatches(([list.title] + tasks.map(\.title)).joined(separator: "\n"))
          && inRange(intent.dateSearchType == .byModifiedDate ? list.modifiedAt : list.createdAt)
      }
      response.taskLists = lists.map { $0.taskList(tasks: notebook.tasks, in: context.timeZone) }
    }
    if kinds.contains(.task) {
      var tasks: [(StoredTask, Int64)] = notebook.tasks.compactMap { task in
        guard identifier.isEmpty || task.id == identifier, titleMatches(task.title, id: task.id, notebook: notebook),
          contentMatches(task.title), intent.status == .unspecified || task.status == intent.status, atLocation(task),
          let moment = moment(of: task), intent.dateSearchType == .byDueDate || inRange(moment)
        else { return nil }
        return (task, moment)
      }
      if bySort { tasks.sort { $0.1 < $1.1 } }
      response.tasks = tasks.map { $0.0.task(in: context.timeZone) }
    }
    return response
  }
}
