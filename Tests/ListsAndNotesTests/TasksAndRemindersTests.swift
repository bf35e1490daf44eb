import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import ListsAndNotes
import ListsAndNotesProtos
import SwiftProtobuf
import Synchronization
import IntentsKitTesting
import Testing

@Suite("Task lists, tasks, reminders and search")
struct TasksAndRemindersTests {
  @Test("create a list: one result per task title; the list and its tasks are stored in order")
  func createList() async throws {
    try await NotesFixture.with { fixture in
      let intent = CreateTaskListIntent.with {
        $0.title = spoken("Party"); $0.taskTitles = [spoken("Balloons"), spoken(" "), spoken("Cake")]
      }
      let titles = try await fixture.createList.resolveTaskTitles(intent: intent, context: fixture.context())
      #expect(titles.count == 3)
      #expect(titles[0].successValue?.spokenPhrase == "Balloons")
      #expect(titles[1].unsupportedReason?.message == "A task needs a title.")
      let answer = try await fixture.handle(fixture.createList, intent)
      #expect(answer.response.createdTaskList.title.spokenPhrase == "Party")
      #expect(answer.response.createdTaskList.tasks.map(\.title.spokenPhrase) == ["Balloons", "Cake"])
      #expect(answer.response.createdTaskList.tasks.allSatisfy { $0.status == .notCompleted })
      let none = try await fixture.createList.resolveTitle(intent: .init(), context: fixture.context())
      #expect(none.needsValuePrompt == "What do you want to call the list?")
    }
  }

  @Test("add tasks: an existing list → success; a missing one → confirmation to create it, then created")
  func addTasks() async throws {
    try await NotesFixture.with { fixture in
      let context = fixture.context()
      let groceries = try await fixture.addTasks.resolveList(
        intent: .with { $0.targetTaskList = .with { $0.title = spoken("groceries") } }, context: context)
      #expect(groceries.successValue?.identifier == "list-groceries")
      let party = try await fixture.addTasks.resolveList(
        intent: .with { $0.targetTaskList = .with { $0.title = spoken("Party") } }, context: context)
      guard case .confirmationRequired(let value, let reason, let prompt) = party else {
        Issue.record("expected confirmation_required, got \(party)")
        return
      }
      #expect(value.title.spokenPhrase == "Party")
      #expect(reason?.name == "listShouldBeCreated")
      #expect(prompt == "You have no list called Party. Do you want to create it?")
      let titles = try await fixture.addTasks.resolveTitles(intent: .init(), context: context)
      #expect(titles.first?.needsValuePrompt == "What do you want to add?")

      let added = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.targetTaskList = .with { $0.title = spoken("Groceries") }; $0.taskTitles = [spoken("Hay")]
        })
      #expect(added.response.modifiedTaskList.tasks.map(\.title.spokenPhrase) == ["Apples", "Carrots", "Hay"])
      #expect(added.response.addedTasks.map(\.title.spokenPhrase) == ["Hay"])
      let created = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.targetTaskList = .with { $0.title = spoken("Party") }; $0.taskTitles = [spoken("Cake")]
        })
      #expect(created.response.code == .success)
      #expect(created.response.modifiedTaskList.title.spokenPhrase == "Party")
    }
  }

  @Test("triggers: \"when I get to work\" and \"at 5 p.m.\" go to Reminders; a past time or a bad repeat is refused")
  func triggers() async throws {
    try await NotesFixture.with { fixture in
      let context = fixture.context()
      let work = SpatialEventTrigger.with {
        $0.placemark = .with { $0.name = "Work" }; $0.event = .arrive
      }
      let slides = AddTasksIntent.with {
        $0.taskTitles = [spoken("Print the slides")]; $0.spatialEventTrigger = work
      }
      #expect(try await fixture.addTasks.resolveSpatial(intent: slides, context: context).successValue == work)
      let reminders = try await fixture.addTasks.resolveList(intent: slides, context: context)
      #expect(reminders.successValue?.title.spokenPhrase == "Reminders")
      let noEvent = try await fixture.addTasks.resolveSpatial(
        intent: .with { $0.spatialEventTrigger = .with { $0.placemark = .with { $0.name = "Work" } } }, context: context
      )
      #expect(noEvent.unsupportedReason != nil)
      let printed = try await fixture.handle(fixture.addTasks, slides)
      #expect(printed.response.modifiedTaskList.title.spokenPhrase == "Reminders")
      #expect(printed.response.addedTasks.first?.spatialEventTrigger.placemark.name == "Work")

      let leave = AddTasksIntent.with {
        $0.taskTitles = [spoken("Leave work")]; $0.temporalEventTrigger = at(17)
      }
      #expect(try await fixture.addTasks.resolveTemporal(intent: leave, context: context).successValue != nil)
      let past = try await fixture.addTasks.resolveTemporal(
        intent: .with { $0.temporalEventTrigger = at(8) }, context: context)
      #expect(past.unsupportedReason?.name == "timeInPast")
      let badRepeat = try await fixture.addTasks.resolveTemporal(
        intent: .with { $0.temporalEventTrigger = at(18, every: .daily, interval: 0) }, context: context)
      #expect(badRepeat.unsupportedReason?.name == "invalidRecurrence")
      // A daily reminder that started this morning is fine: it next comes due tomorrow.
      let daily = try await fixture.addTasks.resolveTemporal(
        intent: .with { $0.temporalEventTrigger = at(8, every: .daily) }, context: context)
      #expect(daily.successValue != nil)
      #expect(try await fixture.handle(fixture.addTasks, leave).response.code == .success)
      let stored = try await fixture.store.read { try await TaskRepository.reminders(of: "diana", in: $0) }
      #expect(stored.map(\.title) == ["Leave work"])
      #expect(stored.first?.dueAt == 1_779_462_000_000)  // 17:00 in Zurich is 15:00 UTC
    }
  }

  @Test("set task attribute: mark done, by title; several → disambiguation; none → unsupported")
  func setAttribute() async throws {
    try await NotesFixture.with { fixture in
      let context = fixture.context()
      let carrots = try await fixture.setAttribute.resolveTask(
        intent: .with { $0.targetTask = .with { $0.title = spoken("carrots") } }, context: context)
      #expect(carrots.successValue?.identifier == "task-carrots")
      let none = try await fixture.setAttribute.resolveTask(
        intent: .with { $0.targetTask = .with { $0.title = spoken("Unicorn food") } }, context: context)
      #expect(none.unsupportedReason?.message == "You have no task called Unicorn food.")
      let done = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.targetTask = .with { $0.title = spoken("Carrots") }; $0.status = .completed
        })
      #expect(done.response.modifiedTask.status == .completed)
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.targetTaskList = .with { $0.title = spoken("Party") }; $0.taskTitles = [spoken("Carrots")]
        })
      let two = try await fixture.setAttribute.resolveTask(
        intent: .with { $0.targetTask = .with { $0.title = spoken("Carrots") } }, context: context)
      #expect(two.disambiguationOptions?.count == 2)
      let nothing = try await fixture.handle(
        fixture.setAttribute, .with { $0.targetTask = .with { $0.identifier = "task-apples" } })
      #expect(nothing.userActivity?.userInfo["error"] == "nothingToChange")
    }
  }

  @Test("search: \"show my completed tasks\", \"the notes I created yesterday\", by place, by due date, sorted")
  func search() async throws {
    try await NotesFixture.with { fixture in
      let completed = try await fixture.handle(
        fixture.search,
        .with {
          $0.itemType = .task; $0.status = .completed
        })
      #expect(completed.response.tasks.map(\.title.spokenPhrase) == ["Apples"])
      #expect(completed.response.notes.isEmpty && completed.response.sortType == .asIs)

      _ = try await fixture.handle(fixture.createNote, .with { $0.title = spoken("Today's note") })
      let yesterday = try await fixture.handle(
        fixture.search,
        .with {
          $0.itemType = .note
          $0.dateSearchType = .byCreatedDate
          $0.dateTime = .with {
            $0.startDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 20
            }
            $0.endDateComponents = .with {
              $0.year = 2026; $0.month = 5; $0.day = 21
            }
          }
        })
      #expect(yesterday.response.notes.map(\.title.spokenPhrase) == ["Unicorn ideas", "Secret stable codes"])
      #expect(yesterday.response.notes.last?.contents.isEmpty == true)  // protected: no contents shown
      #expect(yesterday.response.sortType == .byDate)

      let work = SpatialEventTrigger.with {
        $0.placemark = .with { $0.name = "Work" }; $0.event = .arrive
      }
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.taskTitles = [spoken("Print the slides")]; $0.spatialEventTrigger = work
        })
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.taskTitles = [spoken("Feed the unicorn")]; $0.temporalEventTrigger = at(18)
        })
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.taskTitles = [spoken("Leave work")]; $0.temporalEventTrigger = at(17)
        })
      let atWork = try await fixture.handle(
        fixture.search,
        .with {
          $0.location = .with { $0.name = "work" }; $0.locationSearchType = .byLocationTrigger
        })
      #expect(atWork.response.tasks.map(\.title.spokenPhrase) == ["Print the slides"])
      /// The titles of the tasks "due on the \(day)th of May", a start-only range of one day.
      func titlesDue(onDay day: Int32) async throws -> [String] {
        try await fixture.handle(
          fixture.search,
          .with {
            $0.dateSearchType = .byDueDate
            $0.dateTime = .with {
              $0.startDateComponents = .with {
                $0.year = 2026; $0.month = 5; $0.day = day
              }
            }
          }
        ).response.tasks.map(\.title.spokenPhrase)
      }
      #expect(try await titlesDue(onDay: 22) == ["Leave work", "Feed the unicorn"])
      // "What is due on the 21st" is that day only: not what is due the day after.
      let before = try await titlesDue(onDay: 21)
      #expect(!before.contains("Leave work") && !before.contains("Feed the unicorn"))
      // "At 7 p.m." with no day, said on the 22nd, is due on the 22nd; a day later the search does
      // not re-read it as 7 p.m. today.
      let hourOnly = TemporalEventTrigger.with {
        $0.dateComponentsRange = .with { $0.startDateComponents = .with { $0.hour = 19 } }
      }
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.taskTitles = [spoken("Walk the unicorn")]; $0.temporalEventTrigger = hourOnly
        })
      fixture.clock.advance(by: 86_400)
      #expect(try await titlesDue(onDay: 23).isEmpty)
      let identified = try await fixture.handle(
        fixture.search, .with { $0.title = .spoken("Groceries", identifier: "list-groceries") })
      #expect(identified.response.taskLists.map(\.identifier) == ["list-groceries"])
      #expect(identified.response.notes.isEmpty && identified.response.tasks.isEmpty)
      let byTitle = try await fixture.handle(fixture.search, .with { $0.title = spoken("grocer") })
      #expect(byTitle.response.taskLists.map(\.title.spokenPhrase) == ["Groceries"])
      let byContent = try await fixture.handle(fixture.search, .with { $0.content = "hoverboard" })
      #expect(byContent.response.notes.map(\.identifier) == ["note-ideas"])
      let byIdentifier = try await fixture.handle(fixture.search, .with { $0.notebookItemIdentifier = "task-apples" })
      #expect(byIdentifier.response.tasks.map(\.identifier) == ["task-apples"])
    }
  }

  /// Collects what a reminders stream sends.
  final class Sent: Sendable {
    let batches = Mutex<[[String]]>([])
    func append(_ titles: [String]) { batches.withLock { $0.append(titles) } }
    var all: [[String]] { batches.withLock { $0 } }
  }

  /// Advances `clock` by `seconds` in steps, letting the stream catch up between steps.
  func advance(_ clock: ManualClock, by seconds: TimeInterval, step: TimeInterval = 60) async {
    var left = seconds
    while left > 0 {
      let giveUp = ContinuousClock.now + .seconds(10)
      while clock.sleeperCount == 0, ContinuousClock.now < giveUp { await Task.yield() }
      clock.advance(by: min(step, left))
      left -= step
    }
    let giveUp = ContinuousClock.now + .seconds(10)
    while clock.sleeperCount == 0, ContinuousClock.now < giveUp { await Task.yield() }
  }

  @Test("reminders come due on the clock: each once, a daily one every day; leaving frees the stream")
  func remindersStream() async throws {
    try await NotesFixture.with { fixture in
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.taskTitles = [spoken("Leave work")]; $0.temporalEventTrigger = at(17)
        })
      _ = try await fixture.handle(
        fixture.addTasks,
        .with {
          $0.taskTitles = [spoken("Feed the unicorn")]; $0.temporalEventTrigger = at(18, every: .daily)
        })
      let sent = Sent()
      let context = fixture.context()
      let stream = Task {
        try await fixture.search.startSendingUpdates(for: .with { $0.dateSearchType = .byDueDate }, context: context) {
          sent.append($0.response.tasks.map(\.title.spokenPhrase))
        }
      }
      await advance(fixture.clock, by: 0)
      #expect(sent.all == [[]])
      // 11:00 → 17:00 in Zurich.
      await advance(fixture.clock, by: 6 * 3_600)
      #expect(sent.all == [[], ["Leave work"]])
      await advance(fixture.clock, by: 3_600)
      #expect(sent.all == [[], ["Leave work"], ["Feed the unicorn"]])
      // Done with it: a completed reminder does not come due again; the daily one does.
      _ = try await fixture.handle(
        fixture.setAttribute,
        .with {
          $0.targetTask = .with { $0.title = spoken("Leave work") }; $0.status = .completed
        })
      await advance(fixture.clock, by: 24 * 3_600, step: 3_600)
      #expect(sent.all == [[], ["Leave work"], ["Feed the unicorn"], ["Feed the unicorn"]])
      stream.cancel()
      await #expect(throws: CancellationError.self) { try await stream.value }
      #expect(fixture.clock.sleeperCount == 0)
    }
  }
}
