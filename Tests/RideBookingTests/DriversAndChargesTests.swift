import Foundation
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import RideBooking
import RideBookingProtos
import SQLKit
import SwiftProtobuf
import Testing

@Suite("Real drivers and money: a driver serves one ride at a time; fares, fees and tips are charged once")
struct DriversAndChargesTests {
  /// Signs `user` up as a rider paying with a debit card.
  static func rider(_ user: String, _ fixture: RideFixture) async throws {
    try await fixture.store.write { database in
      try await RidesApp.signUp(
        StoredRider(
          userID: user, displayName: user.capitalized,
          paymentMethod: .with {
            $0.type = .debit; $0.name = "\(user.capitalized)'s Card"; $0.identificationHint = "1234"
          }), in: database)
    }
  }

  static func charges(_ user: String, _ fixture: RideFixture) async throws -> [StoredRideCharge] {
    try await fixture.store.read { try await RideChargeRepository.charges(of: user, in: $0) }
  }

  @Test("three drivers serve three riders; the fourth finds none free until a ride is cancelled or completes")
  func driversAreHeld() async throws {
    try await RideFixture.with { fixture in
      for user in ["ava", "ben", "cleo", "dot"] { try await Self.rider(user, fixture) }
      var drivers: [String] = []
      for user in ["ava", "ben", "cleo"] {
        let answer = try await fixture.handle(fixture.request, RideFixture.bicornToTheForest, user: user)
        #expect(answer.response.code == .success, "\(user)")
        drivers.append(answer.response.rideStatus.driver.person.customIdentifier)
      }
      // Nearest first, and each driver once.
      #expect(drivers.count == 3 && Set(drivers).count == 3, "\(drivers)")
      let confirm = try await fixture.confirm(fixture.request, RideFixture.bicornToTheForest, user: "dot")
      #expect(confirm.response.code == .failureRequiringAppLaunchServiceTemporarilyUnavailable)
      let refused = try await fixture.handle(fixture.request, RideFixture.bicornToTheForest, user: "dot")
      #expect(refused.response.code == .failureRequiringAppLaunchServiceTemporarilyUnavailable)
      #expect(refused.userActivity?.userInfo["error"] == "noDriver")

      // Ben cancels: his driver is free again, for Dot.
      let cancelled = try await fixture.handle(fixture.cancel, CancelRideIntent(), user: "ben")
      #expect(cancelled.response.code == .success)
      let dots = try await fixture.handle(fixture.request, RideFixture.bicornToTheForest, user: "dot")
      #expect(dots.response.code == .success)
      #expect(dots.response.rideStatus.driver.person.customIdentifier == drivers[1])

      // A driver whose ride completed serves again.
      let desk = try await fixture.store.read { try await RideDesk.load(userID: "ava", in: $0) }
      let schedule = try #require(desk.ride("", at: fixture.clock.now()))
      fixture.clock.advance(by: schedule.completedAt.timeIntervalSince(fixture.clock.now()))
      let again = try await fixture.handle(fixture.request, RideFixture.bicornToTheForest, user: "ava")
      #expect(again.response.code == .success)
      #expect(again.response.rideStatus.driver.person.customIdentifier == drivers[0])
    }
  }

  @Test("a claim on a driver another ride holds fails: the compare-and-set, without the plan around it")
  func claimIsAtomic() async throws {
    try await RideFixture.with { fixture in
      let now = fixture.clock.now()
      let (first, second, third) = try await fixture.store.write { database in
        (
          try await DriverRepository.hold(
            "twilight", for: "r1", at: now, until: now.addingTimeInterval(600), in: database),
          try await DriverRepository.hold(
            "twilight", for: "r2", at: now, until: now.addingTimeInterval(600), in: database),
          try await DriverRepository.hold(
            "twilight", for: "r3", at: now.addingTimeInterval(600), until: now.addingTimeInterval(900), in: database)
        )
      }
      #expect(first && !second && third)
    }
  }

  @Test("the fare is charged once the ride completes, to the method then on file; a late cancel's fee; a tip once")
  func charges() async throws {
    try await RideFixture.with { fixture in
      try await Self.rider("ava", fixture)
      let booked = try await fixture.handle(fixture.request, RideFixture.bicornToTheForest, user: "ava")
      #expect(booked.response.code == .success)
      let desk = try await fixture.store.read { try await RideDesk.load(userID: "ava", in: $0) }
      let schedule = try #require(desk.ride("", at: fixture.clock.now()))
      // Nothing is charged while the ride runs.
      let early = try await fixture.store.write {
        try await RideChargeRepository.chargeCompletedFares(at: fixture.clock.now(), in: $0)
      }
      #expect(early == 0)
      // Ava changes her card before the ride ends: the fare goes on the new one.
      _ = try await fixture.store.write { database in
        try await RidesApp.setPaymentMethod(
          .with {
            $0.type = .applePay; $0.name = "Apple Pay"
          }, of: "ava", in: database)
      }
      fixture.clock.advance(by: schedule.completedAt.timeIntervalSince(fixture.clock.now()))
      let charged = try await fixture.store.write {
        try await RideChargeRepository.chargeCompletedFares(at: fixture.clock.now(), in: $0)
      }
      #expect(charged == 1)
      let again = try await fixture.store.write {
        try await RideChargeRepository.chargeCompletedFares(at: fixture.clock.now(), in: $0)
      }
      #expect(again == 0)
      var charges = try await Self.charges("ava", fixture)
      #expect(charges.map(\.kind) == [.fare])
      #expect(charges.first?.amountCents == schedule.ride.fareCents)
      #expect(charges.first?.paymentMethod.name == "Apple Pay")
      #expect(schedule.ride.fareCents > 0)

      // A tip with the feedback is charged once; a second feedback is refused and charges nothing.
      let tip = SendRideFeedbackIntent.with {
        $0.rideIdentifier = schedule.ride.id
        $0.rating = 9
        $0.tip = .with {
          $0.currencyCode = "USD"; $0.units = 3
        }
      }
      #expect(try await fixture.handle(fixture.feedback, tip, user: "ava").response.code == .success)
      #expect(try await fixture.handle(fixture.feedback, tip, user: "ava").response.code != .success)
      charges = try await Self.charges("ava", fixture)
      #expect(charges.filter { $0.kind == .tip }.map(\.amountCents) == [300])

      // A ride cancelled after the free minutes: its fee is charged, its fare never is.
      let second = try await fixture.handle(fixture.request, RideFixture.bicornToTheForest, user: "ava")
      #expect(second.response.code == .success)
      fixture.clock.advance(by: 150)  // past the two free minutes, before the pickup
      let cancelled = try await fixture.handle(fixture.cancel, CancelRideIntent(), user: "ava")
      #expect(cancelled.response.code == .success)
      fixture.clock.advance(by: 3600)
      _ = try await fixture.store.write {
        try await RideChargeRepository.chargeCompletedFares(at: fixture.clock.now(), in: $0)
      }
      charges = try await Self.charges("ava", fixture)
      let secondID = second.response.rideStatus.rideIdentifier
      #expect(charges.filter { $0.rideID == secondID }.map(\.kind) == [.cancellationFee])
      #expect(charges.first { $0.rideID == secondID }?.amountCents == 500)
      // Nobody else was charged anything.
      #expect(try await Self.charges("diana", fixture).isEmpty)
    }
  }
}
