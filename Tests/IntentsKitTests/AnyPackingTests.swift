import Foundation
import IntentMeshCore
import IntentMeshProtos
@testable import IntentsKit
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("Any packing")
struct AnyPackingTests {
  @Test("a message packed as bytes is on the wire what Any(message:) is, and unpacks to the message")
  func sameWire() throws {
    let message = Intentmesh_Messaging_V1_SendMessageIntent.with {
      $0.recipients = [.with { $0.displayName = "Celestra" }]
      $0.content = "Rainbow polish at noon"
    }
    let packed = try Google_Protobuf_Any.packing(message)
    let reference = try Google_Protobuf_Any(message: message)
    #expect(packed.typeURL == reference.typeURL)
    let response = Intentmesh_V1_ResolveResponse.with { $0.resolvedIntent.payload = packed }
    let referenceResponse = Intentmesh_V1_ResolveResponse.with { $0.resolvedIntent.payload = reference }
    let bytes: [UInt8] = try response.serializedBytes()
    #expect(bytes == (try referenceResponse.serializedBytes()))
    #expect(try Intentmesh_Messaging_V1_SendMessageIntent(unpackingAny: packed) == message)
    #expect(packed.isA(Intentmesh_Messaging_V1_SendMessageIntent.self))
  }

  @Test(
    "holds(_:) says what isA(_:) says: the type URL's last segment is the message's full name",
    arguments: [
      "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntent", "intentmesh.messaging.v1.SendMessageIntent",
      "example.com/a/b/intentmesh.messaging.v1.SendMessageIntent", "/intentmesh.messaging.v1.SendMessageIntent",
      "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntentX",
      "type.googleapis.com/xintentmesh.messaging.v1.SendMessageIntent",
      "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntent/", "type.googleapis.com/", "",
      "type.googleapis.com/intentmesh.messaging.v1.SearchForMessagesIntent",
      "type.googleapis.com/intentmesh.messaging.v1.SendMessageIntént",
    ])
  func holds(typeURL: String) {
    var any = Google_Protobuf_Any()
    any.typeURL = typeURL
    #expect(
      any.holds(Intentmesh_Messaging_V1_SendMessageIntent.self)
        == any.isA(Intentmesh_Messaging_V1_SendMessageIntent.self))
  }

  @Test("unpacked(as:) decodes what unpacking an Any decodes")
  func unpacked() throws {
    let message = Intentmesh_Messaging_V1_SendMessageIntent.with {
      $0.recipients = [.with { $0.displayName = "Celestra" }]
      $0.content = "Rainbow polish at noon"
    }
    let bytes: [UInt8] = try Google_Protobuf_Any.packing(message).serializedBytes()
    let wire = try Google_Protobuf_Any(serializedBytes: bytes)
    #expect(try wire.unpacked(as: Intentmesh_Messaging_V1_SendMessageIntent.self) == message)
    #expect(
      try wire.unpacked(as: Intentmesh_Messaging_V1_SendMessageIntent.self)
        == (try Intentmesh_Messaging_V1_SendMessageIntent(unpackingAny: wire)))
  }

  @Test(
    "an intent payload of another type, or with bytes that do not decode, is refused; an empty one is the empty intent")
  func payloadChecks() throws {
    typealias Intent = Intentmesh_Messaging_V1_SendMessageIntent
    let other = try Google_Protobuf_Any.packing(Intentmesh_Messaging_V1_SearchForMessagesIntent())
    #expect(throws: IntentMeshError.self) {
      try IntentPayload.decode(Intent.self, from: other, intentClass: "INSendMessageIntent")
    }
    var garbled = Google_Protobuf_Any()
    garbled.typeURL = "type.googleapis.com/" + Intent.protoMessageName
    garbled.value = Data([0xFF, 0xFF, 0xFF])
    #expect(throws: IntentMeshError.self) {
      try IntentPayload.decode(Intent.self, from: garbled, intentClass: "INSendMessageIntent")
    }
    #expect(try IntentPayload.decode(Intent.self, from: nil, intentClass: "INSendMessageIntent") == Intent())
    #expect(
      try IntentPayload.decode(Intent.self, from: Google_Protobuf_Any(), intentClass: "INSendMessageIntent") == Intent()
    )
  }
}
