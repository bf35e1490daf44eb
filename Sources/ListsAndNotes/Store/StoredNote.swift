internal import IntentsKit
internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import ListsAndNotesProtos
internal import SQLKit

/// A note as stored.
struct StoredNote: Sendable, Equatable {
  var id: String
  var userID: String
  var title: String
  var folder: String
  var contents: [NoteContent]
  var passwordProtected: Bool
  var createdAt: Int64
  var modifiedAt: Int64

  init(
    id: String, userID: String, title: String, folder: String = "", contents: [NoteContent] = [],
    passwordProtected: Bool = false, createdAt: Int64, modifiedAt: Int64
  ) {
    self.id = id
    self.userID = userID
    self.title = title
    self.folder = folder
    self.contents = contents
    self.passwordProtected = passwordProtected
    self.createdAt = createdAt
    self.modifiedAt = modifiedAt
  }

  /// The note as SiriKit's `INNote`; a password-protected note shows no contents.
  func note(in timeZone: TimeZone) -> Note {
    .with {
      $0.identifier = id
      $0.title = .spoken(title, identifier: id)
      $0.contents = passwordProtected ? [] : contents
      if !folder.isEmpty { $0.groupName = .spoken(folder) }
      $0.createdDateComponents = NotebookTime.components(createdAt, in: timeZone)
      $0.modifiedDateComponents = NotebookTime.components(modifiedAt, in: timeZone)
    }
  }

  /// The note's text, for content search.
  var text: String {
    contents.compactMap { if case .text(let text) = $0.content { text } else { nil } }.joined(separator: "\n")
  }
}

/// Reads and writes notes.
enum NoteRepository {
  static func notes(of userID: String, in database: any SQLDatabase) async throws -> [StoredNote] {
    try await database.raw(
      """
      SELECT note_id, title, folder, contents, password_protected, created_at, modified_at
      FROM notes_notes WHERE user_id = \(bind: userID) ORDER BY created_at, note_id
      """
    ).all().map { row in
      let json = try row.decode(column: "contents", as: String.self)
      return StoredNote(
        id: try row.decode(column: "note_id", as: String.self), userID: userID,
        title: try row.decode(column: "title", as: String.self),
        folder: try row.decode(column: "folder", as: String.self),
        contents: try NoteContents.decode(json),
        passwordProtected: try row.decodeFlag(column: "password_protected"),
        createdAt: try row.decode(column: "created_at", as: Int64.self),
        modifiedAt: try row.decode(column: "modified_at", as: Int64.self))
    }
  }

  static func insert(_ note: StoredNote, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      INSERT INTO notes_notes (note_id, user_id, title, folder, contents, password_protected, created_at, modified_at)
      VALUES (\(bind: note.id), \(bind: note.userID), \(bind: note.title), \(bind: note.folder),
              \(bind: try NoteContents.encode(note.contents)), \(bind: note.passwordProtected.rowValue),
              \(bind: note.createdAt), \(bind: note.modifiedAt))
      """
    ).run()
  }

  /// Replaces the note's contents and modification time.
  static func update(_ note: StoredNote, in database: any SQLDatabase) async throws {
    try await database.raw(
      """
      UPDATE notes_notes SET contents = \(bind: try NoteContents.encode(note.contents)),
             modified_at = \(bind: note.modifiedAt)
      WHERE note_id = \(bind: note.id)
      """
    ).run()
  }
}

/// Note contents as a JSON array of `NoteContent` protobuf JSON.
enum NoteContents {
  static func encode(_ contents: [NoteContent]) throws -> String {
    "[" + (try contents.map { try $0.jsonString() }).joined(separator: ",") + "]"
  }

  static func decode(_ json: String) throws -> [NoteContent] {
    let array = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] ?? []
    return try array.map { element in
      let data = try JSONSerialization.data(withJSONObject: element)
      return try NoteContent(jsonUTF8Data: data)
    }
  }
}
