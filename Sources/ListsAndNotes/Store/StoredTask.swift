internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import ListsAndNotesProtos
internal import SQLKit

/// A task as stored, with its list's title for search results.
struct StoredTask: Sendable, Equatable {
  var id: String
  var listID: String
  var userID: String
  var title: String
  var status: TaskStatus
  var position: Int
  var spatialTrigger: SpatialEventTrigger?
  var temporalTrigger: TemporalEventTrigger?
  /// When the temporal trigger first comes due.
  var dueAt: Int64?
  var createdAt: Int64
  var modifiedAt: Int64

  init(
    id: String, listID: String, userID: String, title: String, status: TaskStatus = .notCompleted, position: Int,
    spatialTrigger: SpatialEventTrigger? = nil, temporalTrigger: TemporalEventTrigger? = nil, dueAt: Int64? = nil,
    createdAt: Int64, modifiedAt: Int64
  ) {
    self.id = id
    self.listID = listID
    self.userID = userID
    self.title = title
    self.status = status
    self.position = position
    self.spatialTrigger = spatialTrigger
    self.temporalTrigger = temporalTrigger
    self.dueAt = dueAt
    self.createdAt = createdAt
    self.modifiedAt = modifiedAt
  }

  /// The task as SiriKit's `INTask`.
  func task(in timeZone: TimeZone) -> NotebookTask {
    .with {
      $0.identifier = id
      $0.title = .spoken(title, identifier: id)
      $0.status = status
      $0.taskType = .completable
      if let spatialTrigger { $0.spatialEventTrigger = spatialTrigger }
      if let temporalTrigger { $0.temporalEventTrigger = temporalTrigger }
      $0.createdDateComponents = NotebookTime.components(createdAt, in: timeZone)
      $0.modifiedDateComponents = NotebookTime.components(modifiedAt, in: timeZone)
    }
  }
}

/// Reads and writes tasks.
enum TaskRepository {
  static let columns: SQLQueryString = """
    task_id, list_id, user_id, title, status, position, spatial_trigger, temporal_trigger, due_at, created_at,
    modified_at
    """

  static func tasks(of userID: String, in database: any SQLDatabase) async throws -> [StoredTask] {
    try await database.raw(
      "SELECT \(columns) FROM notes_tasks WHERE user_id = \(bind: userID) ORDER BY list_id, position"
    ).all().map(decode)
  }

  /// Not-completed tasks of `userID` with a temporal trigger, soonest first.
  static func reminders(of userID: String, in database: any SQLDatabase) async throws -> [StoredTask] {
    try await database.raw(
      """
      SELECT \(columns) FROM notes_tasks
      WHERE user_id = \(bind: userID) AND due_at IS NOT NULL AND status <> \(bind: TaskStatus.completed.rawValue)
      ORDER BY due_at, task_id
      """
    ).all().map(decode)
  }

  /// Not-completed tasks of `userID` with a spatial trigger.
  static func placeReminders(of userID: String, in database: any SQLDatabase) async throws -> [StoredTask] {
    try await database.raw(
      """
      SELECT \(columns) FROM notes_tasks
      WHERE user_id = \(bind: userID) AND spatial_trigger <> '' AND status <> \(bind: TaskStatus.completed.rawValue)
      ORDER BY task_id
      """
    ).all().map(decode)
  }

  /// The user's tasks with these ids.
  static func tasks(withIDs ids: Set<String>, of userID: String, in database: any SQLDatabase) async throws
    -> [StoredTask]
  {
    guard !ids.isEmpty else { return [] }
    let list = SQLList(ids.sorted().map { SQLBind($0) })
    return try await database.raw(
      "SELECT \(columns) FROM notes_tasks WHERE user_id = \(bind: userID) AND task_id IN (\(list))"
    ).all().map(decode)
  }

  static func insert(_ task: StoredTask, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO notes_tasks (\(columns))
      VALUES (\(bind: task.id), \(bind: task.listID), \(bind: task.userID), \(bind: task.title),
              \(bind: task.status.rawValue), \(bind: task.position), \(bind: try json(task.spatialTrigger)),
              \(bind: try json(task.temporalTrigger)), \(bind: task.dueAt), \(bind: task.createdAt),
              \(bind: task.modifiedAt))
      """
    ).run()
  }

  /// Writes the task's status, triggers and modification time.
  static func update(_ task: StoredTask, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE notes_tasks SET status = \(bind: task.status.rawValue), spatial_trigger = \(bind: try json(task.spatialTrigger)),
             temporal_trigger = \(bind: try json(task.temporalTrigger)), due_at = \(bind: task.dueAt),
             modified_at = \(bind: task.modifiedAt)
      WHERE task_id = \(bind: task.id)
      """
    ).run()
  }

  static func json<M: SwiftProtobuf.Message>(_ message: M?) throws -> String {
    try message.map { try $0.jsonString() } ?? ""
  }

  static func decode(_ row: any SQLRow) throws -> StoredTask {
    let spatial = try row.decode(column: "spatial_trigger", as: String.self)
    let temporal = try row.decode(column: "temporal_trigger", as: String.self)
    return StoredTask(
      id: try row.decode(column: "task_id", as: String.self),
      listID: try row.decode(column: "list_id", as: String.self),
      userID: try row.decode(column: "user_id", as: String.self),
      title: try row.decode(column: "title", as: String.self),
      status: TaskStatus(rawValue: try row.decode(column: "status", as: Int.self)) ?? .unspecified,
      position: try row.decode(column: "position", as: Int.self),
      spatialTrigger: spatial.isEmpty ? nil : try SpatialEventTrigger(jsonString: spatial),
      temporalTrigger: temporal.isEmpty ? nil : try TemporalEventTrigger(jsonString: temporal),
      dueAt: try row.decode(column: "due_at", as: Int64?.self),
      createdAt: try row.decode(column: "created_at", as: Int64.self),
      modifiedAt: try row.decode(column: "modified_at", as: Int64.self))
  }
}
