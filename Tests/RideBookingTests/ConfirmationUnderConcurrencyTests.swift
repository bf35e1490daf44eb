import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import RideBooking
import RideBookingProtos
import SwiftProtobuf
import Testing

/// A yes to a ride binds where, what and when — not which driver: the driver is chosen at Handle,
/// so a driver another rider takes meanwhile does not undo the yes; a changed drop-off is named.
@Suite("RequestRide's yes under concurrent writes")
struct RideConfirmationUnderConcurrencyTests {
  static func context(_ user: String) -> Intentmesh_V1_RequestContext {
    .with {
      $0.userID = user; $0.timeZone = "America/Los_Angeles"
    }
  }

  static func request(_ identifier: String, to dropOff: String = "the forest") throws -> Intentmesh_V1_Intent {
    var ride = RideFixture.bicornToTheForest
    ride.dropOffLocation = place(dropOff)
    return try RideServiceTests.intent("INRequestRideIntent", ride, identifier: identifier)
  }

  static func asked(_ client: InProcessDomain.Client, _ intent: Intentmesh_V1_Intent, user: String) async throws
    -> (Intentmesh_V1_Intent, String)
  {
    let asked = try await client.askForYes(intent, context: context(user))
    #expect(asked.complete)
    #expect(!asked.token.isEmpty)
    return (asked.intent, asked.token)
  }

  @Test("another rider books the nearest driver between Diana's question and her yes: her yes books another driver")
  func driverTakenMeanwhile() async throws {
    let clock = ManualClock(start: RideFixture.start)
    try await RideServiceTests.domain(clock).run { client, _, _, store in
      try await store.write { database in
        try await RidesApp.signUp(
          StoredRider(userID: "ava", displayName: "Ava Stardust", paymentMethod: .with { $0.type = .applePay }),
          in: database)
      }
      let (mine, yes) = try await Self.asked(client, try Self.request("diana-ride"), user: "diana")
      let (avas, avasYes) = try await Self.asked(client, try Self.request("ava-ride"), user: "ava")
      let avaBooked = try await client.handle(
        .with {
          $0.context = Self.context("ava"); $0.intent = avas; $0.confirmationToken = avasYes
        })
      #expect(avaBooked.response.codeName == "success")
      let again = try await client.resolve(
        .with {
          $0.context = Self.context("diana"); $0.intent = mine
        })
      let booked = try await client.handle(
        .with {
          $0.context = Self.context("diana"); $0.intent = again.resolvedIntent; $0.confirmationToken = yes
        })
      #expect(booked.response.codeName == "success")
      let drivers = try [avaBooked, booked].map {
        try RequestRideIntentResponse(unpackingAny: $0.response.payload).rideStatus.driver.person.displayName
      }
      #expect(drivers[0] != drivers[1], "\(drivers)")
    }
  }

  @Test("a drop-off changed after the yes: FAILED_PRECONDITION naming dropOffLocation; no ride is booked")
  func changedDropOffIsNamed() async throws {
    let clock = ManualClock(start: RideFixture.start)
    try await RideServiceTests.domain(clock).run { client, _, _, store in
      let (_, yes) = try await Self.asked(client, try Self.request("changed"), user: "diana")
      let elsewhere = try await client.resolve(
        .with {
          $0.context = Self.context("diana"); $0.intent = try Self.request("changed", to: "Bill Graham Auditorium")
        })
      #expect(elsewhere.complete)
      await #expect {
        _ = try await client.handle(
          .with {
            $0.context = Self.context("diana"); $0.intent = elsewhere.resolvedIntent; $0.confirmationToken = yes
          })
      } throws: { ($0 as? RPCError)?.changedParameters == ["dropOffLocation"] }
      #expect(try await store.read { try await RideRepository.rides(of: "diana", in: $0) }.isEmpty)
    }
  }
}
