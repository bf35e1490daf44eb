internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import ListsAndNotesProtos
internal import SQLKit

/// A task list as stored.
struct StoredTaskList: Sendable, Equatable {
  var id: String
  var userID: String
  var title: String
  var folder: String
  var createdAt: Int64
  var modifiedAt: Int64

  init(id: String, userID: String, title: String, folder: String = "", createdAt: Int64, modifiedAt: Int64) {
    self.id = id
    self.userID = userID
    self.title = title
    self.folder = folder
    self.createdAt = createdAt
    self.modifiedAt = modifiedAt
  }

  /// The list as SiriKit's `INTaskList`, with `tasks` (its own, in order).
  func taskList(tasks: [StoredTask], in timeZone: TimeZone) -> TaskList {
    .with {
      $0.identifier = id
      $0.title = .spoken(title, identifier: id)
      $0.tasks = tasks.filter { $0.listID == id }.sorted { $0.position < $1.position }.map { $0.task(in: timeZone) }
      if !folder.isEmpty { $0.groupName = .spoken(folder) }
      $0.createdDateComponents = NotebookTime.components(createdAt, in: timeZone)
      $0.modifiedDateComponents = NotebookTime.components(modifiedAt, in: timeZone)
    }
  }
}

/// Reads and writes task lists and folders.
enum TaskListRepository {
  static func lists(of userID: String, in database: any SQLDatabase) async throws -> [StoredTaskList] {
    try await database.raw(
      """
      SELECT list_id, title, folder, created_at, modified_at FROM notes_task_lists
      WHERE user_id = \(bind: userID) ORDER BY created_at, list_id
      """
    ).all().map { row in
      StoredTaskList(
        id: try row.decode(column: "list_id", as: String.self), userID: userID,
        title: try row.decode(column: "title", as: String.self),
        folder: try row.decode(column: "folder", as: String.self),
        createdAt: try row.decode(column: "created_at", as: Int64.self),
        modifiedAt: try row.decode(column: "modified_at", as: Int64.self))
    }
  }

  static func insert(_ list: StoredTaskList, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO notes_task_lists (list_id, user_id, title, folder, created_at, modified_at)
      VALUES (\(bind: list.id), \(bind: list.userID), \(bind: list.title), \(bind: list.folder),
              \(bind: list.createdAt), \(bind: list.modifiedAt))
      """
    ).run()
  }

  static func touch(_ listID: String, at milliseconds: Int64, in database: any SQLDatabase) async throws {
    try await database.raw(
      "UPDATE notes_task_lists SET modified_at = \(bind: milliseconds) WHERE list_id = \(bind: listID)"
    ).run()
  }

  static func folders(of userID: String, in database: any SQLDatabase) async throws -> [String] {
    try await database.raw("SELECT name FROM notes_folders WHERE user_id = \(bind: userID) ORDER BY name").all().map {
      try $0.decode(column: "name", as: String.self)
    }
  }

  static func addFolder(_ name: String, for userID: String, in database: any SQLDatabase) async throws {
    guard !name.isEmpty else { return }
    try await database.raw(
      "INSERT INTO notes_folders (user_id, name) VALUES (\(bind: userID), \(bind: name)) ON CONFLICT DO NOTHING"
    ).run()
  }
}
