internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import ListsAndNotesProtos

/// When a set of reminders (not-completed tasks with a temporal trigger) come due.
struct ReminderSchedule: Sendable {
  let reminders: [StoredTask]
  let timeZone: TimeZone

  init(reminders: [StoredTask], timeZone: TimeZone) {
    self.reminders = reminders
    self.timeZone = timeZone
  }

  func start(of task: StoredTask) -> (Date, Intentmesh_V1_RecurrenceRule?)? {
    guard let dueAt = task.dueAt else { return nil }
    let range = task.temporalTrigger?.dateComponentsRange
    return (Date(epochMilliseconds: dueAt), range?.hasRecurrenceRule == true ? range?.recurrenceRule : nil)
  }

  /// The reminders with a due moment after `after` and not later than `through`, soonest first.
  func due(after: Date, through: Date) -> [StoredTask] {
    reminders.compactMap { task -> (StoredTask, Date)? in
      guard let (start, rule) = start(of: task),
        let first = Recurrence.occurrences(
          start: start, rule: rule, timeZone: timeZone, after: after, through: through, limit: 1
        ).first
      else { return nil }
      return (task, first)
    }.sorted { $0.1 < $1.1 }.map(\.0)
  }

  /// Every moment in (`after`, `through`] at which a reminder comes due — a repeating one as often
  /// as it repeats, up to `limit` times each — in time order (ties by task id).
  func occurrences(after: Date, through: Date, limit: Int = 1_000) -> [(task: StoredTask, at: Date)] {
    reminders.flatMap { task -> [(task: StoredTask, at: Date)] in
      guard let (start, rule) = start(of: task) else { return [] }
      return Recurrence.occurrences(
        start: start, rule: rule, timeZone: timeZone, after: after, through: through, limit: limit
      ).map { (task, $0) }
    }.sorted { ($0.at, $0.task.id) < ($1.at, $1.task.id) }
  }

  /// The next moment after `date` at which a reminder comes due.
  func next(after date: Date) -> Date? {
    reminders.compactMap { task in
      start(of: task).flatMap { Recurrence.next(start: $0.0, rule: $0.1, timeZone: timeZone, after: date) }
    }.min()
  }
}
