import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import ListsAndNotesProtos
import SwiftProtobuf
import Synchronization
import Testing

/// UnicornNote's app side through the gateway over real sockets: Ava names "work", asks to be
/// reminded to call mom when she gets there, and reports where she is; the reminder fires when
/// she arrives — to her live reminders stream, once — and again only after she left and came back.
/// Eve at the same spot fires nothing of Ava's.
@Suite("UnicornNote: place reminders fire on the reported location, through the gateway", .serialized)
struct PlaceRemindersEndToEndTests {
  typealias App = Intentmesh_Notebook_V1_UnicornNoteApp.Client<HTTP2ClientTransport.Posix>
  typealias Extension = MessagingDeliveryTests.Extension

  func withClients<T: Sendable>(port: Int, _ body: (App, Extension) async throws -> T) async throws -> T {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { client in
      try await body(App(wrapping: client), Extension(wrapping: client))
    }
  }

  static let work = (latitude: 47.3769, longitude: 8.5417)
  static let away = (latitude: 47.5, longitude: 8.7)

  static func report(_ place: (latitude: Double, longitude: Double), as user: String, on app: App) async throws
    -> [String]
  {
    try await app.reportLocation(
      .with {
        $0.latitude = place.latitude; $0.longitude = place.longitude
      }, metadata: TestIdentity.metadata(for: user)
    ).fired.map(\.title.spokenPhrase)
  }

  final class Streamed: Sendable {
    let batches = Mutex<[[String]]>([])
    var all: [[String]] { batches.withLock { $0 } }
  }

  @Test("arrive at work: the reminder fires once, to the report and the live stream; again only after leaving")
  func arriveAtWork() async throws {
    let file = TemporaryDatabaseFile("place-reminders")
    defer { file.remove() }
    let notes = try await ServiceProcess("notes-service", arguments: ["--port", "0", "--database", file.path])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(notes.port)"])
    try await withClients(port: gateway.port) { app, client in
      let ava = TestIdentity.metadata(for: "ava")
      // Bad input, each with its status.
      for place in [
        Intentmesh_Notebook_V1_Place.with {
          $0.name = "work"; $0.latitude = 91
        },
        .with {
          $0.name = "work"; $0.radiusMeters = 10
        },
        .with { $0.name = " " },
      ] {
        await MessagingDeliveryTests.expectStatus(.invalidArgument) {
          _ = try await app.setPlace(.with { $0.place = place }, metadata: ava)
        }
      }
      await MessagingDeliveryTests.expectStatus(.invalidArgument) {
        _ = try await app.reportLocation(.with { $0.longitude = 200 }, metadata: ava)
      }
      let set = try await app.setPlace(
        .with {
          $0.place = .with {
            $0.name = "Work"; $0.latitude = Self.work.latitude; $0.longitude = Self.work.longitude
          }
        }, metadata: ava)
      #expect(set.place.radiusMeters == 150)
      #expect(try await app.listPlaces(.init(), metadata: ava).places.map(\.name) == ["Work"])
      #expect(try await app.listPlaces(.init(), metadata: TestIdentity.metadata(for: "eve")).places.isEmpty)

      let added = try await MessagingDeliveryTests.handle(
        try MessagingDeliveryTests.intent(
          "INAddTasksIntent",
          Intentmesh_Notebook_V1_AddTasksIntent.with {
            $0.taskTitles = [.with { $0.spokenPhrase = "Call mom" }]
            $0.spatialEventTrigger = .with {
              $0.placemark = .with { $0.name = "work" }; $0.event = .arrive
            }
          }, identifier: "add-call-mom"), as: "ava", on: client)
      #expect(added.response.codeName == "success")
      // The app reads what the intent made; nobody else's notebook holds it.
      let notebook = try await app.listNotebook(.with { $0.timeZone = "Europe/Zurich" }, metadata: ava)
      #expect(notebook.taskLists.flatMap(\.tasks).map(\.title.spokenPhrase) == ["Call mom"])
      #expect(notebook.taskLists.first?.tasks.first?.spatialEventTrigger.event == .arrive)
      let evesBook = try await app.listNotebook(.init(), metadata: TestIdentity.metadata(for: "eve"))
      #expect(evesBook.taskLists.flatMap(\.tasks).allSatisfy { $0.title.spokenPhrase != "Call mom" })
      await MessagingDeliveryTests.expectStatus(.invalidArgument) {
        _ = try await app.listNotebook(.with { $0.timeZone = "Mars/Olympus" }, metadata: ava)
      }
      #expect(try await Self.report(Self.away, as: "ava", on: app).isEmpty)

      // Ava follows her reminders; she arrives at work.
      let streamed = Streamed()
      let search = try MessagingDeliveryTests.intent(
        "INSearchForNotebookItemsIntent",
        Intentmesh_Notebook_V1_SearchForNotebookItemsIntent.with { $0.dateSearchType = .byDueDate })
      try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
          try await client.startSendingUpdates(
            .with {
              $0.context = MessagingDeliveryTests.context("ava"); $0.intent = search
            }
          ) { response in
            for try await update in response.messages {
              let found = try Intentmesh_Notebook_V1_SearchForNotebookItemsIntentResponse(
                unpackingAny: update.response.payload)
              streamed.batches.withLock { $0.append(found.tasks.map(\.title.spokenPhrase)) }
              if streamed.all.count >= 3 { return }
            }
          }
        }
        group.addTask {
          try await Task.sleep(for: .seconds(20))
          throw CancellationError()  // the stream never got both firings
        }
        try await waitUntil("the stream got the first firing") { !streamed.all.isEmpty }
        #expect(try await Self.report(Self.work, as: "eve", on: app).isEmpty)
        #expect(try await Self.report(Self.work, as: "ava", on: app) == ["Call mom"])
        #expect(try await Self.report(Self.work, as: "ava", on: app).isEmpty)  // still there
        try await waitUntil("the stream got the second firing") { streamed.all.count >= 2 }
        #expect(try await Self.report(Self.away, as: "ava", on: app).isEmpty)
        #expect(try await Self.report(Self.work, as: "ava", on: app) == ["Call mom"])
        try await group.next()
        group.cancelAll()
      }
      #expect(streamed.all == [[], ["Call mom"], ["Call mom"]])
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await notes.stop() == 0)
  }
}
