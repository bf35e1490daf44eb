internal import Foundation
internal import SwiftProtobuf
internal import IntentMeshProtos
internal import IntentsKit
internal import SQLKit
internal import IntentMeshCore

/// Everything a user has in UnicornNote, read in one transaction: what resolution and search work on.
struct Notebook: Sendable {
  let notes: [StoredNote]
  let lists: [StoredTaskList]
  let tasks: [StoredTask]
  let folders: [String]
  /// notebookItemTitle vocabulary: titles the user registered, with the item they name.
  let titles: [UserVocabulary.Entry]
  /// notebookItemGroupName vocabulary.
  let groupNames: [UserVocabulary.Entry]

  /// The user's notes, lists, tasks, folders and notebook vocabulary — or, while the store is
  /// unchanged since an earlier request read them, that request's notebook.
  static func load(userID: String, in database: any SQLDatabase) async throws -> Notebook {
    try await database.cachedRead("notes.notebook", userID: userID) {
      Notebook(
        notes: try await NoteRepository.notes(of: userID, in: database),
        lists: try await TaskListRepository.lists(of: userID, in: database),
        tasks: try await TaskRepository.tasks(of: userID, in: database),
        folders: try await TaskListRepository.folders(of: userID, in: database),
        titles: try await UserVocabulary.entries(userID: userID, type: .notebookItemTitle, in: database),
        groupNames: try await UserVocabulary.entries(userID: userID, type: .notebookItemGroupName, in: database))
    }
  }

  /// Whether `spoken` names an item titled `title` with identifier `id`: by the title itself or by a
  /// vocabulary phrase registered for the item.
  func names(_ spoken: SpeakableString, title: String, id: String) -> Bool {
    if !spoken.vocabularyIdentifier.isEmpty { return spoken.vocabularyIdentifier == id }
    if NameMatching.matches(spoken.spokenPhrase, title) { return true }
    return titles.contains { $0.vocabularyIdentifier == id && NameMatching.matches(spoken.spokenPhrase, $0.phrase) }
  }

  /// The folder `spoken` names: an existing folder (or one the vocabulary names), else the phrase
  /// itself as a new folder.
  func folder(named spoken: String) -> (name: String, exists: Bool) {
    if let existing = folders.first(where: { NameMatching.matches(spoken, $0) }) { return (existing, true) }
    if let entry = groupNames.first(where: { NameMatching.matches(spoken, $0.phrase) }) {
      let name = entry.vocabularyIdentifier.isEmpty ? entry.phrase : entry.vocabularyIdentifier
      return (
        folders.first { NameMatching.matches(name, $0) } ?? name, folders.contains { NameMatching.matches(name, $0) }
      )
    }
    return (spoken.trimmingCharacters(in: .whitespaces), false)
  }
}
