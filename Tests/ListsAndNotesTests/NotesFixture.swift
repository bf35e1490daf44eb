import Foundation
import IntentMeshProtos
import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
import ListsAndNotesProtos
import Logging
import SQLKit
import SwiftProtobuf

/// UnicornNote's store, migrated and seeded in a fresh SQLite file, with handlers over it and a
/// manual clock in Zurich.
struct NotesFixture {
  static let start = Date(timeIntervalSince1970: 1_779_440_400)  // 2026-05-22 09:00 UTC, 11:00 in Zurich
  static let zurich = TimeZone(identifier: "Europe/Zurich")!

  let store: any IntentStore
  let clock: ManualClock
  let identifiers = SequentialIdentifierGenerator(prefix: "item")

  static func with<T: Sendable>(_ body: (NotesFixture) async throws -> T) async throws -> T {
    try await TestStore.with(named: "notes-test") { store in
      try await SchemaMigrator.migrate(store, SchemaMigrator.runtime + NotesSchema.migrations)
      try await NotesSeed.seed(store)
      return try await body(NotesFixture(store: store, clock: ManualClock(start: start)))
    }
  }

  func context() -> IntentContext {
    IntentContext(userID: NotesSeed.demoUser, timeZone: Self.zurich, intentIdentifier: "test", now: clock.now())
  }

  var createNote: CreateNoteHandler { CreateNoteHandler(store: store, identifiers: identifiers) }
  var append: AppendToNoteHandler { AppendToNoteHandler(store: store) }
  var createList: CreateTaskListHandler { CreateTaskListHandler(store: store, identifiers: identifiers) }
  var addTasks: AddTasksHandler { AddTasksHandler(store: store, identifiers: identifiers) }
  var setAttribute: SetTaskAttributeHandler { SetTaskAttributeHandler(store: store) }
  var search: SearchForNotebookItemsHandler { SearchForNotebookItemsHandler(store: store, clock: clock) }

  func handle<H: IntentHandler>(_ handler: H, _ intent: H.Intent) async throws -> IntentAnswer<H.Response> {
    let context = context()
    return try await store.write { try await handler.handle(intent: intent, context: context, database: $0) }
  }

  func setVocabulary(_ type: Intentmesh_V1_VocabularyStringType, _ entries: [(String, String)]) async throws {
    try await store.write { database in
      try await UserVocabulary.replace(
        userID: NotesSeed.demoUser, type: type,
        with: entries.map { UserVocabulary.Entry(phrase: $0.0, vocabularyIdentifier: $0.1) }, in: database)
    }
  }
}

func spoken(_ text: String) -> SpeakableString { .spoken(text) }

func text(_ text: String) -> NoteContent { .with { $0.text = text } }

/// Today (or `days` from today) at `hour`:`minute` in Zurich, as a temporal trigger.
func at(
  _ hour: Int32, _ minute: Int32 = 0, day: Int32 = 22, every frequency: Intentmesh_V1_RecurrenceRule.Frequency? = nil,
  interval: Int32 = 1
)
  -> TemporalEventTrigger
{
  .with {
    $0.dateComponentsRange = .with {
      $0.startDateComponents = .with {
        $0.year = 2026; $0.month = 5; $0.day = day; $0.hour = hour; $0.minute = minute
      }
      if let frequency {
        $0.recurrenceRule = .with {
          $0.frequency = frequency; $0.interval = interval
        }
      }
    }
  }
}
