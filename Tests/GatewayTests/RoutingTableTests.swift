@testable import IntentsKit
import Foundation
import SwiftProtobuf
@testable import Gateway
import GRPCCore
import IntentMeshProtos
import Testing
import ServiceKit

@Suite("Routing table")
struct RoutingTableTests {
  static func manifest(_ app: String, _ alternatives: [String], _ intents: [String], restricted: [String] = [])
    -> Intentmesh_V1_ExtensionManifest
  {
    .with {
      $0.appName = app
      $0.alternativeAppNames = alternatives.map { name in .with { $0.name = name } }
      $0.intents = intents.map { intentClass in
        .with {
          $0.intentClass = intentClass; $0.restrictedWhileLocked = restricted.contains(intentClass)
        }
      }
    }
  }

  let table = RoutingTable(manifests: [
    (
      DomainEndpoint(host: "a", port: 1),
      manifest(
        "UnicornChat", ["CornChat"], ["INSendMessageIntent", "INSearchForMessagesIntent"],
        restricted: ["INSendMessageIntent"])
    ),
    (DomainEndpoint(host: "b", port: 2), manifest("UnicornPay", ["Corn Pay"], ["INSendPaymentIntent"])),
    (DomainEndpoint(host: "c", port: 3), manifest("HornChat", [], ["INSendMessageIntent"])),
  ])

  @Test("app services route by path to every replica declaring them; the gateway's own services never")
  func appServices() {
    var pay = Self.manifest("UnicornPay", [], ["INSendPaymentIntent"])
    pay.appServices = [
      "intentmesh.payments.v1.UnicornPayApp", "intentmesh.gateway.v1.Gateway", "grpc.health.v1.Health",
      "grpc.reflection.v1.ServerReflection", "intentmesh.v1.IntentsExtension",
    ]
    let table = RoutingTable(manifests: [
      (DomainEndpoint(host: "p1", port: 1), pay), (DomainEndpoint(host: "p2", port: 2), pay),
      (DomainEndpoint(host: "p1", port: 1), pay),
    ])
    #expect(
      table.appServiceReplicas(path: "/intentmesh.payments.v1.UnicornPayApp/GetProfile") == [
        DomainEndpoint(host: "p1", port: 1), DomainEndpoint(host: "p2", port: 2),
      ])
    #expect(Array(table.appServices.keys) == ["intentmesh.payments.v1.UnicornPayApp"])
    for path in [
      "/intentmesh.gateway.v1.Gateway/Interact", "/grpc.health.v1.Health/Check",
      "/intentmesh.v1.IntentsExtension/Handle", "/intentmesh.payments.v1.UnicornPayApp", "UnicornPayApp/GetProfile",
      "/", "",
    ] {
      #expect(table.appServiceReplicas(path: path) == nil, "\(path)")
    }
  }

  @Test("routes by class when one app declares it")
  func byClass() throws {
    #expect(try table.route(intentClass: "INSearchForMessagesIntent", appName: "").appName == "UnicornChat")
    #expect(
      try table.route(intentClass: "INSendPaymentIntent", appName: "").endpoint == DomainEndpoint(host: "b", port: 2))
  }

  @Test(
    "routes by app name or alternative name, ignoring case and spaces",
    arguments: ["UnicornChat", "unicorn chat", "CORNCHAT", "Corn Chat"])
  func byAppName(name: String) throws {
    #expect(try table.route(intentClass: "INSendMessageIntent", appName: name).appName == "UnicornChat")
  }

  @Test("two apps for one class and no app named: an error naming both")
  func ambiguous() {
    #expect(throws: GatewayError.ambiguous(intentClass: "INSendMessageIntent", apps: ["UnicornChat", "HornChat"])) {
      try table.route(intentClass: "INSendMessageIntent", appName: "")
    }
    let message = GatewayError.ambiguous(intentClass: "INSendMessageIntent", apps: ["UnicornChat", "HornChat"])
      .rpcErrorMessage
    #expect(message.contains("UnicornChat") && message.contains("HornChat"))
  }

  @Test("unknown class and unknown app are NOT_FOUND")
  func notFound() {
    #expect(throws: GatewayError.noRoute(intentClass: "INBookRestaurantReservationIntent")) {
      try table.route(intentClass: "INBookRestaurantReservationIntent", appName: "")
    }
    #expect(
      throws: GatewayError.noSuchApp(
        appName: "UnicornPay", intentClass: "INSendMessageIntent", apps: ["UnicornChat", "HornChat"])
    ) {
      try table.route(intentClass: "INSendMessageIntent", appName: "UnicornPay")
    }
    #expect(GatewayError.noRoute(intentClass: "X").rpcErrorCode == .notFound)
  }

  @Test("locked devices: declared restrictions and every payments intent are refused")
  func locked() throws {
    let locked = Intentmesh_V1_RequestContext.with {
      $0.userID = "diana"; $0.deviceLocked = true
    }
    let send = Intentmesh_V1_Intent.with {
      $0.intentClass = "INSendMessageIntent"; $0.appName = "UnicornChat"
    }
    #expect(throws: GatewayError.restrictedWhileLocked(intentClass: "INSendMessageIntent")) {
      try table.route(for: send, context: locked)
    }
    // UnicornPay declares no restriction: Siri's own rule for payments applies.
    #expect(throws: GatewayError.restrictedWhileLocked(intentClass: "INSendPaymentIntent")) {
      try table.route(for: .with { $0.intentClass = "INSendPaymentIntent" }, context: locked)
    }
    #expect(
      try table.route(for: .with { $0.intentClass = "INSearchForMessagesIntent" }, context: locked).appName
        == "UnicornChat")
    #expect(GatewayError.restrictedWhileLocked(intentClass: "X").rpcErrorMessage.contains("unlock"))
  }
}

@Suite("Deadlines and prompts")
struct DeadlineTests {
  @Test(
    "grpc-timeout values parse",
    arguments: [
      ("5S", Duration.seconds(5)), ("250m", .milliseconds(250)), ("1H", .seconds(3600)), ("100u", .microseconds(100)),
      ("2M", .seconds(120)),
    ])
  func parse(text: String, duration: Duration) {
    #expect(GRPCTimeout.parse(text) == duration)
  }

  @Test("malformed timeouts are ignored", arguments: ["", "S", "5", "123456789S", "5x", "-5S", "+5S", "5.0S"])
  func malformed(text: String) {
    #expect(GRPCTimeout.parse(text) == nil)
  }

  @Test("the caller's remaining time travels, with a default and a cap")
  func budget() {
    let deadline = CallDeadline(defaultTimeout: .seconds(10), maximumTimeout: .seconds(60))
    var metadata = Metadata()
    #expect(deadline.timeout(for: metadata) == .seconds(10))
    metadata.addString("2S", forKey: "grpc-timeout")
    #expect(deadline.timeout(for: metadata, elapsed: .milliseconds(500)) == .milliseconds(1500))
    var long = Metadata()
    long.addString("10M", forKey: "grpc-timeout")
    #expect(deadline.timeout(for: long) == .seconds(60))
  }

  @Test("parameter names read as words")
  func humanized() {
    #expect(Prompts.humanized("speakableGroupName") == "Speakable group name")
    #expect(Prompts.humanized("content") == "Content")
  }
}
