import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
@testable import ServiceLauncher
import RideBookingProtos
import SwiftProtobuf
import Testing

@Suite("ridebooking-service end to end: a whole ride through the gateway, and across a restart", .serialized)
struct RideBookingEndToEndTests {
  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "America/Los_Angeles"
  }
  /// Rides run 100 times faster: the whole ride takes about ten seconds.
  static let fast = ["UNICORNRIDES_CLOCK_SPEED": "100"]

  static func bicorn() throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = "INRequestRideIntent"
      $0.appName = "UnicornRide"
      $0.payload = try .init(
        message: Intentmesh_Ridebooking_V1_RequestRideIntent.with {
          $0.pickupLocation = .with { $0.name = "300 Post Street" }
          $0.dropOffLocation = .with { $0.name = "the forest" }
          $0.rideOptionName = .with { $0.spokenPhrase = "bicorn" }
        })
    }
  }

  static let status = Intentmesh_V1_Intent.with {
    $0.intentClass = "INGetRideStatusIntent"
    $0.payload = try! .init(message: Intentmesh_Ridebooking_V1_GetRideStatusIntent())
  }

  @Test("book through Interact, follow the live status to completion through the gateway, restart, find the ride")
  func wholeRide() async throws {
    let file = TemporaryDatabaseFile("rides")
    defer { file.remove() }
    let database = file.path
    let arguments = ["--port", "0", "--database", database]
    let rides = try await ServiceProcess("ridebooking-service", arguments: arguments, environment: Self.fast)
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(rides.port)"])
    let rideID = try await Loopback.withClient(port: gateway.port) { grpc in
      let client = Intentmesh_Gateway_V1_Gateway.Client(wrapping: grpc)
      var turn = try await client.interact(
        .with {
          $0.context = Self.context; $0.intent = try Self.bicorn()
        })
      #expect(turn.stage == .needsConfirmation)
      #expect(turn.prompt == "Do you want to request it?")
      turn = try await client.interact(
        .with {
          $0.context = Self.context; $0.intent = turn.intent; $0.userConfirmed = true
          $0.confirmationToken = turn.confirmationToken
        })
      #expect(turn.stage == .done)
      let booked = try Intentmesh_Ridebooking_V1_RequestRideIntentResponse(unpackingAny: turn.response.payload)
      #expect(booked.rideStatus.rideOption.name == "Bicorn")

      // `intentmesh follow` prints the same stream on a terminal, beside the client below.
      let follow = try ChildProcess(
        executable: ServiceProcess.binDirectory.appendingPathComponent("intentmesh"),
        arguments: [
          "follow", "INGetRideStatusIntent", "--app", "UnicornRides", "--gateway", "127.0.0.1:\(gateway.port)",
          "--time-zone", "America/Los_Angeles", "--data", TestIdentity.dataDirectory.path,
        ])

      let extensions = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
      let phases = try await extensions.startSendingUpdates(
        .with {
          $0.context = Self.context; $0.intent = Self.status
        }
      ) { response in
        var phases: [Intentmesh_Ridebooking_V1_RidePhase] = []
        for try await update in response.messages {
          let status = try Intentmesh_Ridebooking_V1_GetRideStatusIntentResponse(unpackingAny: update.response.payload)
          if phases.last != status.rideStatus.phase { phases.append(status.rideStatus.phase) }
        }
        return phases
      }
      let order: [Intentmesh_Ridebooking_V1_RidePhase] = [
        .received, .confirmed, .approachingPickup, .pickup, .ongoing, .completed,
      ]
      #expect(Array(order.drop { $0 != phases.first }) == phases, "\(phases)")
      // The stream ends with the completed ride after at least one change seen live. (The ride runs
      // at 100x: on a loaded machine the stream may start as late as the trip itself, so which
      // phase it starts at is not fixed; their order is, above.)
      #expect(phases.last == .completed && phases.count >= 2, "\(phases)")
      let stopFollowing = ContinuousClock.now + .seconds(30)
      while follow.isRunning, ContinuousClock.now < stopFollowing { try await Task.sleep(for: .milliseconds(20)) }
      follow.terminate()
      let followed = await follow.exited()
      await follow.outputEnded()
      let printed = follow
      #expect(followed.status == 0, "\(printed.text)")
      #expect(printed.text.contains("UnicornRides ["), "\(printed.text)")
      // Like the stream above, `follow` may connect after the short approach (3 s at 100x) on a
      // loaded machine: it shows at least one phase before the arrival, whichever it caught first.
      #expect(
        ["Requested", "Confirmed", "Approaching pickup", "At the pickup", "On the way"].contains {
          printed.text.contains("│ \($0)")
        }, "\(printed.text)")
      #expect(printed.text.contains("│ Arrived"), "\(printed.text)")
      #expect(printed.text.contains("Your ride at"), "\(printed.text)")
      #expect(printed.text.contains("UnicornRides: updates ended after"), "\(printed.text)")
      return booked.rideStatus.rideIdentifier
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await rides.stop() == 0)

    // The ride's facts are in the store; its phase follows the clock. An accelerated clock starts
    // afresh with the process, so the restarted service runs far faster: the ride is long over.
    let again = try await ServiceProcess(
      "ridebooking-service", arguments: arguments, environment: ["UNICORNRIDES_CLOCK_SPEED": "100000"])
    try await Loopback.withClient(port: again.port) { grpc in
      let handled = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).confirmAndHandle(
        .with {
          $0.context = Self.context
          var intent = Self.status
          intent.identifier = "after-restart"
          $0.intent = intent
        })
      let status = try Intentmesh_Ridebooking_V1_GetRideStatusIntentResponse(unpackingAny: handled.response.payload)
      #expect(status.rideStatus.rideIdentifier == rideID)
      #expect(status.rideStatus.phase == .completed)
      #expect(status.rideStatus.completionStatus.outcome == .completed)
      #expect(status.rideStatus.pickupLocation.name == "300 Post Street")
      #expect(status.rideStatus.rideOption.name == "Bicorn")
      let feedback = try await Intentmesh_V1_IntentsExtension.Client(wrapping: grpc).confirmAndHandle(
        .with {
          $0.context = Self.context
          $0.intent = try .with {
            $0.intentClass = "INSendRideFeedbackIntent"
            $0.identifier = "feedback-after-restart"
            $0.payload = try .init(
              message: Intentmesh_Ridebooking_V1_SendRideFeedbackIntent.with {
                $0.rideIdentifier = rideID; $0.rating = 10
              })
          }
        })
      #expect(feedback.response.codeName == "success")
    }
    #expect(try await again.stop() == 0)
  }
}
