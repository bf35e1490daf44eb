import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import ListsAndNotes
import ListsAndNotesProtos
import SQLKit
import SwiftProtobuf
import Synchronization
import Testing

@Suite("Reminders reach the user once, even offline; places fire them when the user arrives or leaves")
struct ReminderDeliveryTests {
  final class Sent: Sendable {
    private let batches = Mutex<[[String]]>([])
    func append(_ titles: [String]) { batches.withLock { $0.append(titles) } }
    var all: [[String]] { batches.withLock { $0 } }
  }

  /// Follows the reminders until `count` answers came (or ten seconds of wall time passed), then leaves.
  static func follow(_ fixture: NotesFixture, answers count: Int, failing: Bool = false) async throws -> [[String]] {
    let sent = Sent()
    let context = fixture.context()
    let stream = Task {
      try await fixture.search.startSendingUpdates(for: .with { $0.dateSearchType = .byDueDate }, context: context) {
        answer in
        let titles = answer.response.tasks.map(\.title.spokenPhrase)
        if failing, !titles.isEmpty { throw CancellationError() }  // the client went away mid-send
        sent.append(titles)
      }
    }
    if failing {
      // The send throws on the first batch: the stream ends with that error.
      _ = try? await stream.value
      return sent.all
    }
    let giveUp = ContinuousClock.now + .seconds(10)
    while sent.all.count < count, ContinuousClock.now < giveUp { try await Task.sleep(for: .milliseconds(5)) }
    stream.cancel()
    _ = try? await stream.value
    return sent.all
  }

  func addReminder(_ fixture: NotesFixture, _ title: String, _ trigger: TemporalEventTrigger) async throws {
    let added = try await fixture.handle(
      fixture.addTasks,
      .with {
        $0.taskTitles = [spoken(title)]; $0.temporalEventTrigger = trigger
      })
    #expect(added.response.code == .success)
  }

  @Test("reminders that came due with no stream open arrive, in order, at the next follow — and only then")
  func offline() async throws {
    try await NotesFixture.with { fixture in
      try await addReminder(fixture, "Leave work", at(17))
      try await addReminder(fixture, "Buy oats", at(17, 30))
      try await addReminder(fixture, "Feed the unicorn", at(18, every: .daily))
      // Nobody follows from 11:00 to 19:00.
      fixture.clock.advance(by: 8 * 3_600)
      #expect(try await Self.follow(fixture, answers: 1) == [["Leave work", "Buy oats", "Feed the unicorn"]])
      // Delivered: the next follow starts empty.
      #expect(try await Self.follow(fixture, answers: 1) == [[]])
      // The daily one comes due again tomorrow, while nobody follows: once, at the next follow.
      fixture.clock.advance(by: 24 * 3_600)
      #expect(try await Self.follow(fixture, answers: 1) == [["Feed the unicorn"]])
      #expect(try await Self.follow(fixture, answers: 1) == [[]])
    }
  }

  @Test("a batch the stream could not send waits for the next stream; a completed task's firing is dropped")
  func keptWhenNotSent() async throws {
    try await NotesFixture.with { fixture in
      try await addReminder(fixture, "Leave work", at(17))
      try await addReminder(fixture, "Buy oats", at(17, 30))
      fixture.clock.advance(by: 8 * 3_600)
      #expect(try await Self.follow(fixture, answers: 1, failing: true) == [])
      _ = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.targetTask = .with { $0.title = spoken("Buy oats") }; $0.status = .completed
        })
      #expect(try await Self.follow(fixture, answers: 1) == [["Leave work"]])
    }
  }

  @Test("a claim is taken once: a second stream of the same user finds nothing left")
  func claimOnce() async throws {
    try await NotesFixture.with { fixture in
      try await addReminder(fixture, "Leave work", at(17))
      fixture.clock.advance(by: 8 * 3_600)
      let now = fixture.clock.now()
      let (first, second) = try await fixture.store.write { database in
        try await ReminderInbox.recordDue(
          userID: NotesSeed.demoUser, timeZone: NotesFixture.zurich, now: now, in: database)
        try await ReminderInbox.recordDue(
          userID: NotesSeed.demoUser, timeZone: NotesFixture.zurich, now: now, in: database)
        return (
          try await ReminderInbox.claim(userID: NotesSeed.demoUser, in: database),
          try await ReminderInbox.claim(userID: NotesSeed.demoUser, in: database)
        )
      }
      #expect(first.map(\.task.title) == ["Leave work"])
      #expect(second.isEmpty)
    }
  }

  static func placeReminder(
    _ title: String, _ event: Intentmesh_Notebook_V1_SpatialEvent, name: String = "", at point: GeoPoint? = nil
  ) -> StoredTask {
    StoredTask(
      id: title, listID: "l", userID: "u", title: title, position: 0,
      spatialTrigger: .with {
        $0.event = event
        $0.placemark = .with {
          $0.name = name
          if let point { $0.location = point.location }
        }
      }, createdAt: 0, modifiedAt: 0)
  }

  @Test("arrive fires on entering the place, depart on leaving it; a first report fires arrivals only")
  func placeTransitions() {
    let work = GeoPoint(latitude: 47.3769, longitude: 8.5417)
    let home = GeoPoint(latitude: 47.3900, longitude: 8.5150)
    let away = GeoPoint(latitude: 47.5000, longitude: 8.7000)
    let nearWork = GeoPoint(latitude: 47.3775, longitude: 8.5420)  // about 70 m away
    let reminders = PlaceReminders(
      reminders: [
        Self.placeReminder("Call mom", .arrive, name: "Work"),
        Self.placeReminder("Water the plants", .depart, at: home),
        Self.placeReminder("Nowhere", .arrive, name: "the moon"),
      ],
      places: [StoredUserPlace(name: "work", point: work, radiusMeters: 100)])
    func fired(_ from: GeoPoint?, _ to: GeoPoint) -> [String] {
      reminders.fired(from: from, to: to).map { "\($0.task.title):\($0.cause.rawValue)" }
    }
    #expect(fired(nil, nearWork) == ["Call mom:arrive"])
    #expect(fired(nil, home).isEmpty)  // at home already: nothing left yet
    #expect(fired(away, nearWork) == ["Call mom:arrive"])
    #expect(fired(nearWork, work).isEmpty)  // still there
    #expect(fired(home, away) == ["Water the plants:depart"])
    #expect(fired(home, work) == ["Call mom:arrive", "Water the plants:depart"])
    #expect(reminders.area(of: Self.placeReminder("Nowhere", .arrive, name: "the moon")) == nil)
  }
}
