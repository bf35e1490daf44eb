internal import IntentsKit
internal import Foundation
internal import IntentMeshProtos
internal import ListsAndNotesProtos
internal import SwiftProtobuf
internal import SQLKit

/// The reminders that fired for a user and wait for their live stream: a time reminder that came
/// due, a place reminder whose place they entered or left. Each firing is a row, kept until a
/// stream claims it, so a reminder that fires while no stream is open reaches the next one — once,
/// in order. Time firings are made for the span since the user's watermark, whenever a stream
/// looks (a user's first look goes back a day).
enum ReminderInbox {
  enum Cause: String, Sendable {
    case time, arrive, depart
  }

  /// One reminder firing.
  struct Firing: Sendable, Equatable {
    var taskID: String
    var firedAt: Int64
    var cause: Cause
  }

  /// How far back a user's first look records what came due: a day.
  static let firstLookback: TimeInterval = 24 * 3_600

  /// Records the time firings of the user's open reminders since their watermark (the first time:
  /// `firstLookback` ago) through `now`, and moves the watermark to `now`. The reminders are read
  /// in the same transaction, so one saved meanwhile is not skipped. Answers the schedule read.
  @discardableResult
  static func recordDue(
    userID: String, timeZone: TimeZone, now: Date, in database: any SQLDatabase
  ) async throws -> ReminderSchedule {
    let schedule = ReminderSchedule(
      reminders: try await TaskRepository.reminders(of: userID, in: database), timeZone: timeZone)
    let watermark = try await database.raw(
      "SELECT through_ms FROM notes_reminder_watermarks WHERE user_id = \(bind: userID)"
    ).first()?.decode(column: "through_ms", as: Int64.self)
    let after = watermark.map(Date.init(epochMilliseconds:)) ?? now.addingTimeInterval(-firstLookback)
    for (task, at) in schedule.occurrences(after: after, through: now) {
      try await record(
        Firing(taskID: task.id, firedAt: at.epochMilliseconds, cause: .time), for: userID, in: database)
    }
    try await database.raw(
      """
      INSERT INTO notes_reminder_watermarks (user_id, through_ms) VALUES (\(bind: userID), \(bind: now.epochMilliseconds))
      ON CONFLICT (user_id) DO UPDATE SET through_ms = excluded.through_ms
      """
    ).run()
    return schedule
  }

  /// Keeps `firing` for the user's stream (once: the same firing again is ignored).
  static func record(_ firing: Firing, for userID: String, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO notes_reminder_firings (user_id, task_id, fired_at, cause, delivered)
      VALUES (\(bind: userID), \(bind: firing.taskID), \(bind: firing.firedAt), \(bind: firing.cause.rawValue), 0)
      ON CONFLICT (user_id, task_id, fired_at, cause) DO NOTHING
      """
    ).run()
  }

  /// Whether firings wait for the user's stream.
  static func hasWaiting(userID: String, in database: any SQLDatabase) async throws -> Bool {
    try await database.raw(
      "SELECT 1 AS one FROM notes_reminder_firings WHERE user_id = \(bind: userID) AND delivered = 0 LIMIT 1"
    ).first() != nil
  }

  /// Takes every waiting firing for one stream (another stream of the user's cannot take them too;
  /// taken rows are deleted), with its task, in firing order. Firings of a task completed or
  /// deleted since are taken and dropped: the reminder is no longer needed.
  static func claim(userID: String, in database: any SQLDatabase) async throws -> [(
    firing: Firing, task: StoredTask
  )] {
    let firings = try await database.raw(
      """
      DELETE FROM notes_reminder_firings WHERE user_id = \(bind: userID) AND delivered = 0
      RETURNING task_id, fired_at, cause
      """
    ).all().map { row in
      Firing(
        taskID: try row.decode(column: "task_id", as: String.self),
        firedAt: try row.decode(column: "fired_at", as: Int64.self),
        cause: Cause(rawValue: try row.decode(column: "cause", as: String.self)) ?? .time)
    }
    let tasks = try await TaskRepository.tasks(withIDs: Set(firings.map(\.taskID)), of: userID, in: database)
    let open = Dictionary(
      tasks.filter { $0.status != .completed }.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    return firings.compactMap { firing in open[firing.taskID].map { (firing, $0) } }
      .sorted { ($0.firing.firedAt, $0.firing.taskID) < ($1.firing.firedAt, $1.firing.taskID) }
  }

  /// Puts claimed firings back (their stream could not send them): the next stream gets them.
  static func unclaim(_ firings: [Firing], of userID: String, in database: any SQLDatabase) async throws {
    for firing in firings { try await record(firing, for: userID, in: database) }
  }
}
