import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
import ListsAndNotesProtos
import Logging
import SQLKit
import SwiftProtobuf

/// UnicornNote's handlers over its store (`DomainFixture`: migrated and seeded as the service does)
/// with a manual clock in Zurich.
struct NotesFixture {
  static let start = Date(timeIntervalSince1970: 1_779_440_400)  // 2026-05-22 09:00 UTC, 11:00 in Zurich
  static let zurich = TimeZone(identifier: "Europe/Zurich")!

  let domain: DomainFixture
  let identifiers = SequentialIdentifierGenerator(prefix: "item")
  var store: any IntentStore { domain.store }
  var clock: ManualClock { domain.clock }

  static func with<T: Sendable>(_ body: (NotesFixture) async throws -> T) async throws -> T {
    try await DomainFixture.with(
      UnicornNote.definition(), user: NotesSeed.demoUser, timeZone: zurich, start: start, intentIdentifier: "test"
    ) { try await body(NotesFixture(domain: $0)) }
  }

  func context() -> IntentContext {
    domain.context()
  }

  var createNote: CreateNoteHandler { CreateNoteHandler(store: store, identifiers: identifiers) }
  var append: AppendToNoteHandler { AppendToNoteHandler(store: store) }
  var createList: CreateTaskListHandler { CreateTaskListHandler(store: store, identifiers: identifiers) }
  var addTasks: AddTasksHandler { AddTasksHandler(store: store, identifiers: identifiers) }
  var setAttribute: SetTaskAttributeHandler { SetTaskAttributeHandler(store: store) }
  var search: SearchForNotebookItemsHandler { SearchForNotebookItemsHandler(store: store, clock: clock) }

  func handle<H: IntentHandler>(_ handler: H, _ intent: H.Intent) async throws -> IntentAnswer<H.Response> {
    try await domain.handle(handler, intent)
  }

  func setVocabulary(_ type: Intentmesh_V1_VocabularyStringType, _ entries: [(String, String)]) async throws {
    try await domain.setVocabulary(type, entries)
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
