import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
import ListsAndNotesProtos
import SwiftProtobuf
import Testing

@Suite("notes-service over an in-process transport: manifest and cards")
struct NotesServiceTests {
  static let manifest = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Services/ListsAndNotes/Manifest")
  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "Europe/Zurich"
  }

  let domain = InProcessDomain(
    definition: UnicornNote.definition(
      clock: ManualClock(start: NotesFixture.start), identifiers: SequentialIdentifierGenerator(prefix: "svc")),
    manifestDirectory: NotesServiceTests.manifest, now: { NotesFixture.start })

  static func intent<M: SwiftProtobuf.Message>(_ intentClass: String, _ message: M, identifier: String = "") throws
    -> Intentmesh_V1_Intent
  {
    try .with {
      $0.intentClass = intentClass
      $0.identifier = identifier
      $0.payload = try .init(message: message)
    }
  }

  @Test("Describe: six intents, search streams reminders, vocabulary types")
  func describe() async throws {
    try await domain.run { client, _, _, _ in
      let manifest = try await client.describe(.init()).manifest
      #expect(manifest.appName == "UnicornNote")
      #expect(
        manifest.intents.map(\.intentClass) == [
          "INCreateNoteIntent", "INAppendToNoteIntent", "INCreateTaskListIntent", "INAddTasksIntent",
          "INSetTaskAttributeIntent", "INSearchForNotebookItemsIntent",
        ])
      #expect(manifest.intents.filter(\.supportsLiveUpdates).map(\.intentClass) == ["INSearchForNotebookItemsIntent"])
      #expect(manifest.vocabularyTypes == [.notebookItemTitle, .notebookItemGroupName])
    }
  }

  @Test("cards: a note draft, a saved task list, search results")
  func cards() async throws {
    try await domain.run { client, _, _, _ in
      let note = try Self.intent(
        "INCreateNoteIntent",
        CreateNoteIntent.with {
          $0.title = spoken("Unicorn ideas"); $0.content = text("Glitter hoverboard"); $0.groupName = spoken("Rainbow")
        })
      let draft = try await client.configureView(
        .with {
          $0.context = Self.context
          $0.interaction = .with {
            $0.intent = note; $0.intentHandlingStatus = .ready
          }
        })
      #expect(draft.view.kind == "note-card")
      #expect(draft.configuredParameters.map(\.keyPath) == ["title", "content", "groupName"])
      #expect(
        draft.view.root.stack.children.map(\.text.text) == ["Unicorn ideas", "Rainbow", "Glitter hoverboard", "Draft"])

      let list = try Self.intent(
        "INCreateTaskListIntent",
        CreateTaskListIntent.with {
          $0.title = spoken("Party"); $0.taskTitles = [spoken("Balloons"), spoken("Cake")]
        }, identifier: "list-1")
      let handled = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = list
        })
      #expect(handled.response.codeName == "success")
      let saved = try await client.configureView(
        .with {
          $0.context = Self.context; $0.interaction = handled.interaction
        })
      #expect(saved.view.kind == "task-list-card")
      #expect(saved.view.root.stack.children.map(\.text.text) == ["Party", "☐ Balloons", "☐ Cake", "Saved"])

      let search = try Self.intent(
        "INSearchForNotebookItemsIntent", SearchForNotebookItemsIntent.with { $0.itemType = .taskList })
      let found = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = search
        })
      let results = try await client.configureView(
        .with {
          $0.context = Self.context; $0.interaction = found.interaction
        })
      #expect(results.view.kind == "search-results")
      #expect(results.view.root.stack.children.map(\.row.value) == ["Groceries (2)", "Party (2)"])
    }
  }
}
