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
    let interactionBytes: [UInt8] = try answer.interaction.serializedBytes()
    #expect(answerBytes.count - storedBytes.count > interactionBytes.count)
    let restored = InteractionBuilder.restored(try Intentmesh_V1_HandleResponse(serializedBytes: storedBytes))
    #expect(restored == answer)
    #expect(try restored.serializedBytes() as [UInt8] == answerBytes)
  }

  @Test(
    "the envelope cuts SiriKit's cycle once: the answer's interaction is its response's activity's, that interaction's response has no activity, and an answer carries each payload three times",
    arguments: [nil, UserActivityDraft(activityType: "com.example.chat", userInfo: ["thread": "7"])])
  func cycleCutOnce(userActivity: UserActivityDraft?) throws {
    let answer = try Self.handled(userActivity: userActivity)
    #expect(answer.response.userActivity.interaction == answer.interaction)
    #expect(!answer.interaction.intentResponse.hasUserActivity)
    #expect(answer.response.userActivity.activityType == (userActivity?.activityType ?? "INSendMessageIntent"))
    var bare = answer.response
    bare.clearUserActivity()
    #expect(answer.interaction.intentResponse == bare)
    let payload: [UInt8] = try answer.response.payload.serializedBytes()
    let bytes: [UInt8] = try answer.serializedBytes()
    let copies = (0...(bytes.count - payload.count)).filter { Array(bytes[$0..<($0 + payload.count)]) == payload }
    #expect(copies.count == 3)
  }

  @Test(
    "an answer stored before the cycle was cut (its interaction's response carried the activity again) is restored in today's shape"
  )
  func storedBeforeTheCutRestoredCut() throws {
    let answer = try Self.handled(userActivity: nil)
    var older = answer
    older.interaction.intentResponse = older.response
    var stored = older
    stored.clearInteraction()
    #expect(InteractionBuilder.restored(stored) == answer)
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
