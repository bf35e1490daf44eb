import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import ListsAndNotesProtos
import SwiftProtobuf
import Testing

@Suite("notes-service end to end: a list and a reminder through the gateway, kept across a restart", .serialized)
struct NotesEndToEndTests {
  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "Europe/Zurich"
  }

  static func intent<M: SwiftProtobuf.Message>(_ intentClass: String, _ message: M) throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = intentClass
      $0.appName = "UnicornNote"
      $0.payload = try .init(message: message)
    }
  }

  /// Tomorrow at 17:00 in Zurich, as date components.
  static var tomorrowAtFive: Intentmesh_V1_DateComponents {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "Europe/Zurich")!
    let tomorrow = calendar.dateComponents([.year, .month, .day], from: Date().addingTimeInterval(86_400))
    return .with {
      $0.year = Int32(tomorrow.year!); $0.month = Int32(tomorrow.month!); $0.day = Int32(tomorrow.day!); $0.hour = 17
    }
  }

  static func search(_ client: Intentmesh_Gateway_V1_Gateway.Client<HTTP2ClientTransport.Posix>) async throws
    -> Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse
  {
    let turn = try await client.interact(
      .with {
        $0.context = Self.context
        $0.intent = try Self.intent(
          "INSearchForNotebookItemsIntent",
          Intentmesh_Notebook_V1_SearchForNotebookItemsIntent.with {
            $0.dateSearchType = .byDueDate
            $0.dateTime = .with { $0.startDateComponents = Self.tomorrowAtFive }
          })
      })
    #expect(turn.stage == .done)
    return try Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse(unpackingAny: turn.response.payload)
  }

  @Test("create a list, add a reminder for tomorrow at 5 p.m., find it by due date, restart, find it again")
  func listAndReminder() async throws {
    let file = TemporaryDatabaseFile("notes")
    defer { file.remove() }
    let database = file.path
    let arguments = ["--port", "0", "--database", database]
    let notes = try await ServiceProcess("notes-service", arguments: arguments)
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(notes.port)"])
    try await Loopback.withClient(port: gateway.port) { grpc in
      let client = Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc)
      let created = try await client.interact(
        .with {
          $0.context = Self.context
          $0.intent = try Self.intent(
            "INCreateTaskListIntent",
            Intentmesh_Notebook_V1_CreateTaskListIntent.with {
              $0.title = .with { $0.spokenPhrase = "Party" }
              $0.taskTitles = [.with { $0.spokenPhrase = "Balloons" }]
            })
        })
      #expect(created.stage == .done, "\(created)")
      #expect(created.layout.sections.first?.view.kind == "task-list-card")

      let reminder = try await client.interact(
        .with {
          $0.context = Self.context
          $0.intent = try Self.intent(
            "INAddTasksIntent",
            Intentmesh_Notebook_V1_AddTasksIntent.with {
              $0.taskTitles = [.with { $0.spokenPhrase = "Leave work" }]
              $0.temporalEventTrigger = .with {
                $0.dateComponentsRange = .with { $0.startDateComponents = Self.tomorrowAtFive }
              }
            })
        })
      #expect(reminder.stage == .done, "\(reminder)")
      let added = try Intentmesh_Notebook_V1_AddTasksIntentResponse(unpackingAny: reminder.response.payload)
      #expect(added.modifiedTaskList.title.spokenPhrase == "Reminders")
      #expect(try await Self.search(client).tasks.map(\.title.spokenPhrase) == ["Leave work"])

      // The reminders stream answers at once with what is due now (nothing yet); the client leaves.
      let first = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).startSendingUpdates(
        .with {
          $0.context = Self.context
          $0.intent = try Self.intent(
            "INSearchForNotebookItemsIntent",
            Intentmesh_Notebook_V1_SearchForNotebookItemsIntent.with { $0.dateSearchType = .byDueDate })
        }
      ) { response -> Int? in
        for try await update in response.messages {
          return try Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse(unpackingAny: update.response.payload)
            .tasks.count
        }
        return nil
      }
      #expect(first == 0)
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await notes.stop() == 0)

    let again = try await ServiceProcess("notes-service", arguments: arguments)
    let gatewayAgain = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(again.port)"])
    try await Loopback.withClient(port: gatewayAgain.port) { grpc in
      let client = Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc)
      let found = try await Self.search(client)
      #expect(found.tasks.map(\.title.spokenPhrase) == ["Leave work"])
    }
    #expect(try await gatewayAgain.stop() == 0)
    #expect(try await again.stop() == 0)
  }
}
