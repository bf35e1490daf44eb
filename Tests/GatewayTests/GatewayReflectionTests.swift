import Foundation
@testable import Gateway
import IntentMeshProtos
import ReflectionProtos
@testable import ServiceKit
@testable import IntentMeshCore
import SwiftProtobuf
import Testing

@Suite("Gateway reflection: its own contract, and what its domains' reflection serves")
struct GatewayReflectionTests {
  /// A domain's own file the gateway was never built with: a payload and its response, importing
  /// the envelope's types (which the gateway has).
  static let hopFile = Google_Protobuf_FileDescriptorProto.with {
    $0.name = "fake/v1/hop.proto"
    $0.package = "fake.v1"
    $0.syntax = "proto3"
    $0.dependency = ["intentmesh/v1/types.proto"]
    $0.messageType = [
      .with {
        $0.name = "HopIntent"
        $0.field = [
          .with {
            $0.name = "destination"; $0.number = 1; $0.label = .optional; $0.type = .message
            $0.typeName = ".intentmesh.v1.Placemark"; $0.jsonName = "destination"
          }
        ]
      },
      .with { $0.name = "HopIntentResponse" },
    ]
  }

  /// Reflection as the fake domain serves it: its file and the embedded set it imports from.
  static func domainReflection() throws -> ReflectionService {
    let index = try ReflectionIndex.embedded(services: ["intentmesh.v1.IntentsExtension"]).merging(
      [hopFile], replacing: [])
    return ReflectionService(index: { index })
  }

  static func files(_ index: ReflectionIndex, symbol: String) throws -> [String] {
    try index.answer(.with { $0.fileContainingSymbol = symbol }).fileDescriptorResponse.fileDescriptorProto.map {
      try Google_Protobuf_FileDescriptorProto(serializedBytes: $0).name
    }
  }

  @Test("a domain's types the gateway was not built with are described once the domain is; its imports resolve")
  func domainTypes() async throws {
    let fake = FakeDomain(
      appName: "Hopper", intents: ["HOPHopIntent"], payloadType: "fake.v1.HopIntent",
      extraServices: [try Self.domainReflection()])
    try await TestGateway.run(fakes: [fake]) { harness in
      // Routed like any domain (and the harness's client connected before the body ends).
      let routes = try await harness.gatewayClient.listRoutes(.init()).routes
      #expect(routes.contains { $0.intentClass == "HOPHopIntent" && $0.payloadType == "fake.v1.HopIntent" })
      let reflection = try GatewayReflection(
        directory: harness.directory, services: ["intentmesh.gateway.v1.Gateway"], relayed: { [] })
      var files: [String] = []
      for _ in 0..<100 {
        files = try Self.files(reflection.index(), symbol: "fake.v1.HopIntent")
        if !files.isEmpty { break }
        await harness.directory.refreshAll()
        try await Task.sleep(for: .milliseconds(50))
      }
      #expect(files.first == "fake/v1/hop.proto")
      #expect(files.contains("intentmesh/v1/types.proto"))
      // The gateway's own contract is still there; the domains' packages come only from the domains.
      #expect(
        try Self.files(reflection.index(), symbol: "intentmesh.gateway.v1.Gateway").first
          == "intentmesh/gateway/v1/gateway.proto")
      #expect(try Self.files(reflection.index(), symbol: "intentmesh.payments.v1.SendPaymentIntent").isEmpty)
    }
  }

  @Test("merging: a domain's own file replaces an older copy; an import the index holds is kept")
  func merging() throws {
    let base = try ReflectionIndex.embedded(services: [])
    let embedded = try Google_Protobuf_FileDescriptorSet(
      serializedBytes: Data(base64Encoded: ReflectionDescriptorSet.base64, options: .ignoreUnknownCharacters) ?? Data()
    ).file
    var newer = try #require(embedded.first { $0.name == "intentmesh/messaging/v1/messaging.proto" })
    newer.messageType.append(.with { $0.name = "SendGlitterIntent" })
    var changedImport = try #require(embedded.first { $0.name == "intentmesh/v1/types.proto" })
    changedImport.messageType.append(.with { $0.name = "NotFromTheDomain" })
    let merged = try base.merging([newer, changedImport], replacing: [newer.name])
    #expect(try Self.files(merged, symbol: "intentmesh.messaging.v1.SendGlitterIntent").first == newer.name)
    #expect(try Self.files(base, symbol: "intentmesh.messaging.v1.SendGlitterIntent").isEmpty)
    #expect(try Self.files(merged, symbol: "intentmesh.v1.NotFromTheDomain").isEmpty)
  }
}
