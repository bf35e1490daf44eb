import Foundation
import IntentMeshProtos
import MessagingProtos
import SwiftProtobuf
import Testing

@testable import IntentsKit
@testable import IntentsRuntime

@Suite("Interaction envelope")
struct InteractionBuilderTests {
  static func handled(userActivity: UserActivityDraft?) throws -> Intentmesh_V1_HandleResponse {
    let intent = Intentmesh_V1_Intent.with {
      $0.intentClass = "INSendMessageIntent"
      $0.identifier = "intent-1"
      $0.payload = try! .packing(Intentmesh_Messaging_V1_SendMessageIntent.with { $0.content = "hello" })
    }
    let answer = try HandlerAnswer(
      IntentAnswer<Intentmesh_Messaging_V1_SendMessageIntentResponse>(code: .success, userActivity: userActivity))
    let built = InteractionBuilder.build(
      intent: intent, answer: answer, status: .success, date: Date(timeIntervalSince1970: 1_795_000_000.25))
    return .with {
      $0.response = built.response
      $0.interaction = built.interaction
    }
  }

  @Test(
    "a handled answer is stored without the interaction its response carries, and restored to the same bytes",
    arguments: [nil, UserActivityDraft(activityType: "com.example.chat", userInfo: ["thread": "7"])])
  func storedCompactly(userActivity: UserActivityDraft?) throws {
    let answer = try Self.handled(userActivity: userActivity)
    let stored = InteractionBuilder.storable(answer)
    #expect(!stored.hasInteraction)
    let storedBytes: [UInt8] = try stored.serializedBytes()
    let answerBytes: [UInt8] = try answer.serializedBytes()
    #expect(storedBytes.count * 2 < answerBytes.count)
    let restored = InteractionBuilder.restored(try Intentmesh_V1_HandleResponse(serializedBytes: storedBytes))
    #expect(restored == answer)
    #expect(try restored.serializedBytes() as [UInt8] == answerBytes)
  }

  @Test("an answer whose interaction is not the one its response carries is stored whole, and read back as is")
  func otherInteractionStoredWhole() throws {
    var answer = try Self.handled(userActivity: nil)
    answer.interaction.direction = .incoming
    let stored = InteractionBuilder.storable(answer)
    #expect(stored == answer)
    #expect(InteractionBuilder.restored(stored) == answer)
  }
}
