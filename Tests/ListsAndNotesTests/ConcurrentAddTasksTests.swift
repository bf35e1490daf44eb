import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
import ListsAndNotesProtos
import SwiftProtobuf
import Testing

/// UnicornNote asks no yes, but the race the others have is here too: a list resolved and confirmed
/// while other tasks land on it. Handle appends to the list as it is then, never writes back the
/// list it was given: 20 additions confirmed before any is handled all land, in order of handling.
@Suite("AddTasks under concurrent writes to the same list")
struct ConcurrentAddTasksTests {
  let domain = NotesServiceTests().domain

  @Test("20 AddTasks on Groceries, each resolved and confirmed before any is handled: every task lands once")
  func twentyConcurrentAdditions() async throws {
    try await domain.run { client, _, _, store in
      let count = 20
      let asked = try await withThrowingTaskGroup(of: Intentmesh_V1_Intent.self) { group in
        for index in 0..<count {
          group.addTask {
            let intent = try NotesServiceTests.intent(
              "INAddTasksIntent",
              AddTasksIntent.with {
                $0.targetTaskList = .with { $0.title = spoken("Groceries") }
                $0.taskTitles = [spoken("item \(index)")]
              }, identifier: "add-\(index)")
            let resolved = try await client.resolve(
              .with {
                $0.context = NotesServiceTests.context; $0.intent = intent
              })
            #expect(resolved.complete)
            let confirmed = try await client.confirm(
              .with {
                $0.context = NotesServiceTests.context; $0.intent = resolved.resolvedIntent
              })
            #expect(confirmed.response.codeName == "ready")
            return resolved.resolvedIntent
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      let codes = try await withThrowingTaskGroup(of: String.self) { group in
        for intent in asked {
          group.addTask {
            try await client.handle(
              .with {
                $0.context = NotesServiceTests.context; $0.intent = intent
              }
            )
            .response.codeName
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(codes == Array(repeating: "success", count: count))
      let titles = try await store.read { try await TaskRepository.tasks(of: "diana", in: $0) }
        .filter { $0.listID == "list-groceries" }.map(\.title)
      #expect(titles.count == 2 + count, "\(titles)")
      #expect(Set(titles) == Set(["Apples", "Carrots"] + (0..<count).map { "item \($0)" }))
    }
  }
}
