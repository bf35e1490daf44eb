import Foundation
import IntentMeshProtos
@testable import IntentsKit
@testable import RideBooking
import RideBookingProtos
import SwiftProtobuf
import Synchronization
import IntentsKitTesting
import Testing

/// Collects what a live-update stream sends, from another task.
final class UpdateLog: Sendable {
  private let updates = Mutex<[RideStatus]>([])
  let finished = Atomic<Bool>(false)

  func append(_ status: RideStatus) { updates.withLock { $0.append(status) } }
  var all: [RideStatus] { updates.withLock { $0 } }
  var phases: [RidePhase] {
    all.map(\.phase).reduce(into: []) { phases, phase in if phases.last != phase { phases.append(phase) } }
  }
}

/// Moves the manual clock in steps whenever the stream waits on it, until the stream ends (or a
/// minute of wall time has passed, so a broken stream fails the test instead of hanging it).
func drive(_ clock: ManualClock, step: TimeInterval = 10, until log: UpdateLog) async {
  let giveUp = ContinuousClock.now + .seconds(60)
  while ContinuousClock.now < giveUp {
    if log.finished.load(ordering: .acquiring) { return }
    if clock.sleeperCount > 0 {
      clock.advance(by: step)
    } else {
      await Task.yield()
    }
  }
}

/// Yields until `condition` holds, for at most ten seconds of wall time.
func eventually(_ condition: () -> Bool) async -> Bool {
  let giveUp = ContinuousClock.now + .seconds(10)
  while ContinuousClock.now < giveUp {
    if condition() { return true }
    await Task.yield()
  }
  return condition()
}

@Suite("A ride's life on a virtual clock: phases, live updates, cancel, feedback")
struct RideLifecycleTests {
  @Test("GetRideStatus follows the schedule: received → confirmed → approaching → pickup → ongoing → completed")
  func phases() async throws {
    try await RideFixture.with { fixture in
      let booked = try await fixture.book()
      let desk = try await fixture.store.read { try await RideDesk.load(userID: "diana", in: $0) }
      let ride = try #require(desk.rides.first)
      let schedule = try #require(desk.schedule(of: ride))
      #expect(schedule.ride.id == booked.rideIdentifier)
      let moments: [(Date, RidePhase)] = [
        (schedule.confirmedAt.addingTimeInterval(-1), .received), (schedule.confirmedAt, .confirmed),
        (schedule.approachingAt, .approachingPickup), (schedule.pickupAt, .pickup), (schedule.ongoingAt, .ongoing),
        (schedule.completedAt.addingTimeInterval(-1), .ongoing), (schedule.completedAt, .completed),
      ]
      var elapsed = RideFixture.start
      for (moment, phase) in moments {
        fixture.clock.advance(by: moment.timeIntervalSince(elapsed))
        elapsed = moment
        let answer = try await fixture.handle(fixture.status, GetRideStatusIntent())
        #expect(answer.response.rideStatus.phase == phase, "at \(moment)")
      }
      let done = try await fixture.handle(fixture.status, GetRideStatusIntent())
      #expect(done.response.rideStatus.completionStatus.outcome == .completed)
      #expect(done.response.rideStatus.completionStatus.paymentAmount == booked.rideOption.priceRange.minimumPrice)
      #expect(done.response.rideStatus.vehicle.location.latitude == 37.7989)
      #expect(
        try await fixture.handle(fixture.status, GetRideStatusIntent(), user: "sleepy").response.code
          == .failureRequiringAppLaunchMustVerifyCredentials)
      #expect(
        try await fixture.handle(fixture.status, GetRideStatusIntent(), user: "nobody").response.code
          == .failureRequiringAppLaunch)
    }
  }

  @Test("the live stream sends every phase in order and each vehicle move, then ends with the ride")
  func liveUpdates() async throws {
    try await RideFixture.with { fixture in
      _ = try await fixture.book()
      let log = UpdateLog()
      let context = fixture.context()
      let stream = Task {
        defer { log.finished.store(true, ordering: .releasing) }
        try await fixture.status.startSendingUpdates(for: .init(), context: context) { answer in
          log.append(answer.response.rideStatus)
        }
      }
      await drive(fixture.clock, until: log)
      try await stream.value
      #expect(log.phases == [.received, .confirmed, .approachingPickup, .pickup, .ongoing, .completed])
      let approaching = log.all.filter { $0.phase == .approachingPickup }
      #expect(approaching.count >= 4)
      #expect(Set(approaching.map(\.vehicle.location.latitude)).count == approaching.count)
      let ongoing = log.all.filter { $0.phase == .ongoing }
      #expect(ongoing.count >= 10)
      #expect(log.all.last?.completionStatus.outcome == .completed)
      // No two updates the same: only changes are sent.
      #expect(zip(log.all, log.all.dropFirst()).allSatisfy { $0 != $1 })
      #expect(fixture.clock.sleeperCount == 0)
    }
  }

  @Test("a client that leaves the stream frees it: no sleeper is left on the clock")
  func cancelledStream() async throws {
    try await RideFixture.with { fixture in
      _ = try await fixture.book()
      let log = UpdateLog()
      let context = fixture.context()
      let stream = Task {
        try await fixture.status.startSendingUpdates(for: .init(), context: context) {
          log.append($0.response.rideStatus)
        }
      }
      #expect(await eventually { fixture.clock.sleeperCount == 1 })
      stream.cancel()
      await #expect(throws: CancellationError.self) { try await stream.value }
      #expect(fixture.clock.sleeperCount == 0)
      #expect(log.all.count == 1)
    }
  }

  @Test("no running ride: the stream sends the last status (or the failure) once and ends")
  func noRide() async throws {
    try await RideFixture.with { fixture in
      let log = UpdateLog()
      try await fixture.status.startSendingUpdates(for: .init(), context: fixture.context()) {
        log.append($0.response.rideStatus)
      }
      #expect(log.all.count == 1)
      #expect(fixture.clock.sleeperCount == 0)
    }
  }

  @Test("cancel: free within two minutes, 5.00 after; the stream ends cancelled; not once on board")
  func cancel() async throws {
    try await RideFixture.with { fixture in
      _ = try await fixture.book()
      let free = try await fixture.confirm(fixture.cancel, CancelRideIntent())
      #expect(free.response.code == .ready)
      #expect(free.response.cancellationFee == .cents(0))
      #expect(free.response.cancellationFeeThreshold.minute == 2)
      fixture.clock.advance(by: 150)
      let log = UpdateLog()
      let context = fixture.context()
      let stream = Task {
        defer { log.finished.store(true, ordering: .releasing) }
        try await fixture.status.startSendingUpdates(for: .init(), context: context) {
          log.append($0.response.rideStatus)
        }
      }
      #expect(await eventually { fixture.clock.sleeperCount == 1 })
      let cancelled = try await fixture.handle(fixture.cancel, CancelRideIntent())
      #expect(cancelled.response.code == .success)
      #expect(cancelled.response.cancellationFee == .cents(500))
      await drive(fixture.clock, until: log)
      try await stream.value
      #expect(log.all.last?.phase == .completed)
      #expect(log.all.last?.completionStatus.outcome == .canceledByUser)
      #expect(log.all.last?.completionStatus.paymentAmount == .cents(500))
      let again = try await fixture.handle(fixture.cancel, CancelRideIntent())
      #expect(again.response.code == .failure)
      #expect(again.userActivity?.userInfo["error"] == "rideEnded")
      let feedback = try await fixture.handle(fixture.feedback, .with { $0.rating = 3 })
      #expect(feedback.userActivity?.userInfo["error"] == "rideNotCompleted")

      // A new ride can be booked once the last one is cancelled; on board it cannot be cancelled.
      let second = try await fixture.book()
      let desk = try await fixture.store.read { try await RideDesk.load(userID: "diana", in: $0) }
      let ride = try #require(desk.rides.first { $0.id == second.rideIdentifier })
      let schedule = try #require(desk.schedule(of: ride))
      fixture.clock.advance(by: schedule.ongoingAt.timeIntervalSince(fixture.clock.now()) + 1)
      let onBoard = try await fixture.handle(fixture.cancel, .with { $0.rideIdentifier = second.rideIdentifier })
      #expect(onBoard.userActivity?.userInfo["error"] == "rideOngoing")
    }
  }

  @Test("feedback: only for a completed ride, rating 0 to 10, a tip in dollars, once")
  func feedback() async throws {
    try await RideFixture.with { fixture in
      let booked = try await fixture.book()
      let early = try await fixture.confirm(fixture.feedback, .with { $0.rating = 9 })
      #expect(early.userActivity?.userInfo["error"] == "rideNotCompleted")
      fixture.clock.advance(by: 3_600)
      let rating = try await fixture.feedback.resolveRating(
        intent: .with { $0.rating = 11 }, context: fixture.context())
      #expect(rating.unsupportedReason?.message == "A rating is from 0 to 10.")
      let badTip = try await fixture.handle(fixture.feedback, .with { $0.tip = .cents(20_000) })
      #expect(badTip.userActivity?.userInfo["error"] == "invalidTip")
      // Absurd amounts are refused, not trapped on.
      let huge = try await fixture.handle(fixture.feedback, .with { $0.tip = .with { $0.units = Int64.max / 10 } })
      #expect(huge.userActivity?.userInfo["error"] == "invalidTip")
      #expect(
        CurrencyAmount.with {
          $0.units = 1; $0.nanos = -10_000_000
        }.cents == nil)
      let intent = SendRideFeedbackIntent.with {
        $0.rideIdentifier = booked.rideIdentifier; $0.rating = 9; $0.tip = .cents(200)
      }
      #expect(try await fixture.confirm(fixture.feedback, intent).response.code == .ready)
      #expect(try await fixture.handle(fixture.feedback, intent).response.code == .success)
      let twice = try await fixture.handle(fixture.feedback, intent)
      #expect(twice.userActivity?.userInfo["error"] == "feedbackAlreadySent")
      let ride = try await fixture.store.read { try await RideRepository.ride(booked.rideIdentifier, in: $0) }
      #expect(ride?.rating == 9 && ride?.tipCents == 200)
      let status = try await fixture.handle(fixture.status, GetRideStatusIntent())
      #expect(!status.response.rideStatus.completionStatus.feedbackRate)
    }
  }

  @Test("a scheduled ride waits for its pickup time")
  func scheduled() async throws {
    try await RideFixture.with { fixture in
      var intent = RideFixture.bicornToTheForest
      intent.scheduledPickupTime = RideTimes.range(RideFixture.start.addingTimeInterval(3_600))
      let booked = try await fixture.book(intent)
      #expect(booked.scheduledPickupTime.startDateComponents.hour == 17)
      #expect(abs(booked.estimatedPickupDate.date.timeIntervalSince(RideFixture.start.addingTimeInterval(3_600))) < 1)
      fixture.clock.advance(by: 1_800)
      let waiting = try await fixture.handle(fixture.status, GetRideStatusIntent())
      #expect(waiting.response.rideStatus.phase == .confirmed)
    }
  }
}
