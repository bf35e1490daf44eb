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
}
