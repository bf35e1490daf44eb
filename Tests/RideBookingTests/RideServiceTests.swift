import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
@testable import RideBooking
import RideBookingProtos
import SwiftProtobuf
import Synchronization
@testable import ServiceKit
import Testing

@Suite("ridebooking-service: manifest, views, and the live status stream over real sockets", .serialized)
struct RideServiceTests {
  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"; $0.timeZone = "America/Los_Angeles"
  }

  static func intent<M: SwiftProtobuf.Message>(_ intentClass: String, _ message: M, identifier: String = "") throws
    -> Intentmesh_V1_Intent
  {
    try .with {
      $0.intentClass = intentClass
      $0.identifier = identifier
      $0.payload = try .init(message: message)
    }
  }

  static func domain(_ clock: ManualClock) -> InProcessDomain {
    InProcessDomain(
      definition: UnicornRides.definition(clock: clock, identifiers: SequentialIdentifierGenerator(prefix: "ride")),
      manifestDirectory: RideFixture.manifest, now: { clock.now() })
  }

  @Test("Describe: five intents, the status intent streams, the Unicorn Ride view order is declared")
  func describe() async throws {
    let clock = ManualClock(start: RideFixture.start)
    try await Self.domain(clock).run { client, _, _, _ in
      let manifest = try await client.describe(.init()).manifest
      #expect(manifest.appName == "UnicornRides")
      #expect(
        manifest.intents.map(\.intentClass) == [
          "INListRideOptionsIntent", "INRequestRideIntent", "INGetRideStatusIntent", "INCancelRideIntent",
          "INSendRideFeedbackIntent",
        ])
      #expect(manifest.intents.filter(\.supportsLiveUpdates).map(\.intentClass) == ["INGetRideStatusIntent"])
      #expect(manifest.intentsRestrictedWhileLocked == ["INRequestRideIntent", "INCancelRideIntent"])
      let request = try #require(manifest.intents.first { $0.intentClass == "INRequestRideIntent" })
      #expect(
        request.viewParameters.map { "\($0.parameterClass).\($0.keyPath)" } == [
          "INRequestRideIntent.pickupLocation", "INRequestRideIntent.dropOffLocation",
          "INRequestRideIntent.rideOptionName", "INRequestRideIntentResponse.rideStatus.driver",
          "INRequestRideIntentResponse.rideStatus.vehicle",
        ])
      #expect(manifest.parameterVocabularies.contains { $0.parameterNames == ["INRequestRideIntent.rideOptionName"] })
    }
  }

  @Test("the Unicorn Ride view: header with fare and surge, pickup map (declined in Maps), driver + vehicle as one")
  func unicornRideView() async throws {
    // 18:00 in San Francisco: surge pricing.
    let clock = ManualClock(start: RideFixture.start.addingTimeInterval(9 * 3_600))
    try await Self.domain(clock).run { client, _, _, _ in
      let intent = try Self.intent(
        "INRequestRideIntent", RideFixture.bicornToTheForest, identifier: "view-ride-1")
      let handled = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = intent
        })
      #expect(handled.response.codeName == "success")
      func configure(_ keyPaths: [(String, String)], context: Intentmesh_V1_HostedViewContext = .siriSnippet)
        async throws -> Intentmesh_V1_ConfigureViewResponse
      {
        try await client.configureView(
          .with {
            $0.context = Self.context
            $0.interaction = handled.interaction
            $0.parameters = keyPaths.map { pair in
              .with {
                $0.parameterClass = pair.0; $0.keyPath = pair.1
              }
            }
            $0.hostedViewContext = context
          })
      }
      let header = try await configure([])
      #expect(header.configured)
      #expect(header.view.kind == "unicorn-ride-header")
      #expect(
        header.configuredParameters.map(\.keyPath) == [
          "rideStatus.rideOption.priceRange", "rideStatus.rideOption.specialPricing",
        ])
      #expect(header.view.root.stack.children.contains { $0.role == "badge" && $0.text.text == "1.5x Surge" })
      let map = try await configure([("INRequestRideIntent", "pickupLocation")])
      #expect(map.view.kind == "unicorn-ride-map")
      #expect(map.view.root.map.annotations.first?.name == "300 Post Street")
      let maps = try await configure([("INRequestRideIntent", "pickupLocation")], context: .mapsCard)
      #expect(!maps.configured)
      #expect(maps.displayValues.first?.displayText == "300 Post Street")
      let driver = try await configure([("INRequestRideIntentResponse", "rideStatus.driver")])
      #expect(driver.configuredParameters.map(\.keyPath) == ["rideStatus.driver", "rideStatus.vehicle"])
      #expect(driver.view.root.stack.children.map(\.text.text) == ["Twilight Hoof ★4.9", "Twin-Horn Bicorn · UNCRN 1"])
      let option = try await configure([("INRequestRideIntent", "rideOptionName")])
      #expect(option.view.root.row.value == "Bicorn")
    }
  }

  @Test(
    "StartSendingUpdates over a real socket: every phase in order, the stream ends at completion; a client that leaves frees the stream"
  )
  func statusStreamOverSockets() async throws {
    let clock = ManualClock(start: RideFixture.start)
    let path = TemporaryDatabase.path(named: "rides-socket")
    defer { TemporaryDatabase.remove(path) }
    var logger = Logger(label: "test.rides")
    logger.logLevel = .warning
    let store = try await SQLiteStore.open(path: path, logger: logger)
    let prepared = try await PreparedDomain.prepare(
      definition: UnicornRides.definition(clock: clock, identifiers: SequentialIdentifierGenerator(prefix: "ride")),
      store: store, manifestDirectory: RideFixture.manifest, now: { clock.now() }, logger: logger)
    let server = GRPCServer(
      transport: HTTP2ServerTransport.Posix(
        address: .ipv4(host: "127.0.0.1", port: 0), transportSecurity: .plaintext),
      services: prepared.services, interceptors: try await TestIdentity.serverInterceptors())
    try await withThrowingDiscardingTaskGroup { group in
      group.addTask { try await server.serve() }
      let port = try #require(try await server.listeningAddress?.ipv4?.port)
      let transport = try HTTP2ClientTransport.Posix(
        target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
      try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { grpc in
        let client = Intentmesh_V1_IntentsExtension.Client(wrapping: grpc)
        let booked = try await client.confirmAndHandle(
          .with {
            $0.context = Self.context
            $0.intent = try Self.intent("INRequestRideIntent", RideFixture.bicornToTheForest, identifier: "socket-1")
          })
        #expect(booked.response.codeName == "success")
        let status = try Self.intent("INGetRideStatusIntent", GetRideStatusIntent())

        // Follow the ride to the end.
        let log = UpdateLog()
        try await withThrowingTaskGroup(of: Void.self) { streams in
          streams.addTask {
            defer { log.finished.store(true, ordering: .releasing) }
            try await client.startSendingUpdates(
              .with {
                $0.context = Self.context; $0.intent = status
              }
            ) { response in
              for try await update in response.messages {
                log.append(try GetRideStatusIntentResponse(unpackingAny: update.response.payload).rideStatus)
              }
            }
          }
          streams.addTask { await drive(clock, until: log) }
          try await streams.waitForAll()
        }
        #expect(log.phases == [.received, .confirmed, .approachingPickup, .pickup, .ongoing, .completed])
        #expect(clock.sleeperCount == 0)

        // A second ride; the client leaves after the first update.
        let second = try await client.confirmAndHandle(
          .with {
            $0.context = Self.context
            $0.intent = try Self.intent("INRequestRideIntent", RideFixture.bicornToTheForest, identifier: "socket-2")
          })
        #expect(second.response.codeName == "success")
        let first = try await client.startSendingUpdates(
          .with {
            $0.context = Self.context; $0.intent = status
          }
        ) { response -> RideStatus? in
          for try await update in response.messages {
            return try GetRideStatusIntentResponse(unpackingAny: update.response.payload).rideStatus
          }
          return nil
        }
        #expect(first?.phase == .received)
        #expect(await eventually { clock.sleeperCount == 0 })
      }
      prepared.board.finish()
      server.beginGracefulShutdown()
    }
    try await store.close()
  }
}
