import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import IntentMeshProtos
import IntentsKitTesting
import RideBookingProtos
import SwiftProtobuf
import Testing

/// Riders who exist only because they signed up through UnicornRides' app API, through the
/// gateway over real sockets, on a fast ride clock: each books a ride; with every driver held the
/// next rider is told no service is available; completed fares are charged to each rider's payment
/// method and shown to them alone.
@Suite("UnicornRides: riders sign up, drivers are held, fares are charged, through the gateway", .serialized)
struct RidersEndToEndTests {
  typealias App = Intentmesh_Ridebooking_V1_UnicornRidesApp.Client<HTTP2ClientTransport.Posix>
  typealias Extension = MessagingDeliveryTests.Extension

  func withClients<T: Sendable>(port: Int, _ body: (App, Extension) async throws -> T) async throws -> T {
    let transport = try HTTP2ClientTransport.Posix(
      target: .ipv4(address: "127.0.0.1", port: port), transportSecurity: .plaintext)
    return try await withGRPCClient(transport: transport, interceptors: [ContextUserTokenInterceptor()]) { client in
      try await body(App(wrapping: client), Extension(wrapping: client))
    }
  }

  static let ride = Intentmesh_Ridebooking_V1_RequestRideIntent.with {
    $0.pickupLocation = .with { $0.name = "300 Post Street" }
    $0.dropOffLocation = .with { $0.name = "the forest" }
  }

  static func card(_ name: String) -> Intentmesh_V1_PaymentMethod {
    .with {
      $0.type = .debit; $0.name = name; $0.identificationHint = "4242"
    }
  }

  /// Books `ride` as `user` as Siri would: Confirm, and Handle only once Confirm is ready. The
  /// answer's code name and, when booked, the driver.
  static func book(_ user: String, identifier: String, on client: Extension) async throws -> (String, String?) {
    let intent = try MessagingDeliveryTests.intent("INRequestRideIntent", ride, identifier: identifier)
    let confirmed = try await client.confirm(
      .with {
        $0.context = MessagingDeliveryTests.context(user); $0.intent = intent
      })
    guard confirmed.response.codeName == "ready" else { return (confirmed.response.codeName, nil) }
    let handled = try await client.handle(
      .with {
        $0.context = MessagingDeliveryTests.context(user); $0.intent = intent
        $0.confirmationToken = confirmed.confirmationToken
      })
    let status = try Intentmesh_Ridebooking_V1_RequestRideIntentResponse(unpackingAny: handled.response.payload)
    return (handled.response.codeName, status.rideStatus.driver.person.customIdentifier)
  }

  @Test("four riders, three drivers: the fourth waits; fares land on each rider's own card, once")
  func ridersDriversAndCharges() async throws {
    let file = TemporaryDatabaseFile("riders")
    defer { file.remove() }
    // 200x: a ride of about ten minutes takes three seconds; fares are charged when a rider looks.
    let rides = try await ServiceProcess(
      "ridebooking-service", arguments: ["--port", "0", "--database", file.path],
      environment: ["UNICORNRIDES_CLOCK_SPEED": "200"])
    let gateway = try await ServiceProcess(
      "gateway", arguments: ["--port", "0", "--domain", "127.0.0.1:\(rides.port)"])
    try await withClients(port: gateway.port) { app, client in
      let users = ["ava", "ben", "cleo", "dot"]
      await MessagingDeliveryTests.expectStatus(.notFound) {
        _ = try await app.getRider(.init(), metadata: TestIdentity.metadata(for: "ava"))
      }
      for user in users {
        let rider = try await app.signUp(
          .with {
            $0.displayName = user.capitalized; $0.paymentMethod = Self.card("\(user.capitalized)'s Card")
          }, metadata: TestIdentity.metadata(for: user))
        #expect(rider.rider.userID == user)
      }
      // Bad input, each with its status.
      await MessagingDeliveryTests.expectStatus(.alreadyExists) {
        _ = try await app.signUp(
          .with {
            $0.displayName = "Again"; $0.paymentMethod = Self.card("Card")
          }, metadata: TestIdentity.metadata(for: "ava"))
      }
      for method in [Intentmesh_V1_PaymentMethod.with { $0.name = "No type" }, Self.card(" ")] {
        await MessagingDeliveryTests.expectStatus(.invalidArgument) {
          _ = try await app.signUp(
            .with {
              $0.displayName = "Eve"; $0.paymentMethod = method
            }, metadata: TestIdentity.metadata(for: "eve"))
        }
      }
      await MessagingDeliveryTests.expectStatus(.invalidArgument) {
        _ = try await app.listRides(.with { $0.limit = 101 }, metadata: TestIdentity.metadata(for: "ava"))
      }
      await MessagingDeliveryTests.expectStatus(.failedPrecondition) {
        _ = try await app.setPaymentMethod(
          .with { $0.paymentMethod = Self.card("Card") }, metadata: TestIdentity.metadata(for: "eve"))
      }

      var codes: [String: String] = [:]
      var drivers: Set<String> = []
      for user in users {
        let (code, driver) = try await Self.book(user, identifier: "ride-\(user)", on: client)
        codes[user] = code
        if let driver { drivers.insert(driver) }
      }
      #expect(codes.values.filter { $0 == "success" }.count == 3, "\(codes)")
      #expect(codes["dot"] == "failureRequiringAppLaunchServiceTemporarilyUnavailable", "\(codes)")
      #expect(drivers.count == 3)

      // Once the rides complete, each rider sees their own fare, charged to their own card, once.
      let giveUp = ContinuousClock.now + .seconds(30)
      var charges: [Intentmesh_Ridebooking_V1_Charge] = []
      while ContinuousClock.now < giveUp {
        charges = try await app.listCharges(.init(), metadata: TestIdentity.metadata(for: "ava")).charges
        if !charges.isEmpty { break }
        try await Task.sleep(for: .milliseconds(200))
      }
      #expect(charges.map(\.kind) == [.fare])
      #expect(charges.first?.paymentMethod.name == "Ava's Card")
      let avasRides = try await app.listRides(.init(), metadata: TestIdentity.metadata(for: "ava")).rides
      #expect(avasRides.count == 1)
      #expect(avasRides.first?.status.phase == .completed)
      #expect(avasRides.first?.charges.map(\.kind) == [.fare])
      #expect(avasRides.first?.charges.first?.amount.units ?? 0 > 0)
      #expect(try await app.listCharges(.init(), metadata: TestIdentity.metadata(for: "ava")).charges.count == 1)
      // Dot never rode: nothing to list, nothing charged; Eve is no rider at all.
      #expect(try await app.listRides(.init(), metadata: TestIdentity.metadata(for: "dot")).rides.isEmpty)
      #expect(try await app.listCharges(.init(), metadata: TestIdentity.metadata(for: "eve")).charges.isEmpty)
      // The drivers are free again: Dot books now.
      let later = try await Self.book("dot", identifier: "ride-dot-2", on: client)
      #expect(later.0 == "success")
    }
    #expect(try await gateway.stop() == 0)
    #expect(try await rides.stop() == 0)
  }
}
