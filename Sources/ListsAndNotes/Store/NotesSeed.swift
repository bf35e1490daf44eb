internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import ListsAndNotesProtos
internal import IntentsKit
internal import SQLKit

/// Demo data for `diana`: a "Unicorn ideas" note in the "Rainbow" folder, a password-protected
/// "Secret stable codes" note, and a "Groceries" list with apples (done) and carrots.
enum NotesSeed {
  static let demoUser = "diana"
  /// 2026-05-20 09:00 UTC.
  static let seededAt: Int64 = 1_779_267_600_000

  static func seed(_ store: any IntentStore) async throws {
    try await store.write { database in
      if !(try await NoteRepository.notes(of: demoUser, in: database)).isEmpty { return }
      try await TaskListRepository.addFolder("Rainbow", for: demoUser, in: database)
      try await NoteRepository.insert(
        StoredNote(
          id: "note-ideas", userID: demoUser, title: "Unicorn ideas", folder: "Rainbow",
          contents: [.with { $0.text = "Glitter-powered hoverboard" }], createdAt: seededAt, modifiedAt: seededAt),
        in: database)
      try await NoteRepository.insert(
        StoredNote(
          id: "note-secret", userID: demoUser, title: "Secret stable codes",
          contents: [.with { $0.text = "Gate: 1234" }], passwordProtected: true, createdAt: seededAt,
          modifiedAt: seededAt),
        in: database)
      try await TaskListRepository.insert(
        StoredTaskList(
          id: "list-groceries", userID: demoUser, title: "Groceries", createdAt: seededAt, modifiedAt: seededAt),
        in: database)
      for (position, (title, status)) in [("Apples", TaskStatus.completed), ("Carrots", .notCompleted)].enumerated() {
        try await TaskRepository.insert(
          StoredTask(
            id: "task-\(title.lowercased())", listID: "list-groceries", userID: demoUser, title: title, status: status,
            position: position, createdAt: seededAt, modifiedAt: seededAt),
          in: database)
      }
    }
  }
}
