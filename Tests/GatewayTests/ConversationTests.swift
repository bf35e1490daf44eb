@testable import IntentsKit
import Foundation
import GRPCCore
import IntentsKitTesting
@testable import Gateway
import IntentMeshProtos
@testable import Messaging
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("Interact: the UnicornChat conversation through the gateway", .serialized)
struct ConversationTests {
  typealias Harness = TestGateway

  static func edit(_ intent: Intentmesh_V1_Intent, _ change: (inout SendMessageIntent) throws -> Void) throws
    -> Intentmesh_V1_Intent
  {
    var message = try SendMessageIntent(unpackingAny: intent.payload)
    try change(&message)
    var edited = intent
    edited.payload = try .init(message: message)
    return edited
  }

  @Test("send a UnicornChat message → To whom? → Which Diana? → What do you want to say? → Ready to send it? → sent")
  func fullConversation() async throws {
    try await Harness.run { harness in
      let client = harness.gatewayClient
      let display = Intentmesh_Gateway_V1_Display.with {
        $0.maximumSize = .with {
          $0.width = 320; $0.height = 400
        }
      }
      var turn = try await client.interact(
        .with {
          $0.context = Harness.context
          $0.intent = try Harness.intent("INSendMessageIntent", app: "UnicornChat", payload: SendMessageIntent())
          $0.display = display
        })
      #expect(turn.stage == .needsParameter)
      #expect(turn.parameter == "recipients")
      #expect(turn.prompt == "To whom?")
      #expect(turn.appName == "UnicornChat")
      #expect(!turn.intent.identifier.isEmpty)
      let identifier = turn.intent.identifier

      var intent = try Self.edit(turn.intent) { $0.recipients = [.with { $0.displayName = "Diana" }] }
      turn = try await client.interact(
        .with {
          $0.context = Harness.context; $0.intent = intent; $0.display = display
        })
      #expect(turn.stage == .needsParameter)
      #expect(turn.prompt == "Which Diana?")
      let options = turn.result.disambiguation.options
      #expect(options.map(\.displayText) == ["Diana Prince", "Diana Ross"])

      intent = try Self.edit(turn.intent) { $0.recipients = [try Person(unpackingAny: options[0].value)] }
      turn = try await client.interact(
        .with {
          $0.context = Harness.context; $0.intent = intent; $0.display = display
        })
      #expect(turn.parameter == "content")
      #expect(turn.prompt == "What do you want to say to Diana Prince?")

      intent = try Self.edit(turn.intent) { $0.content = "Great job on your presentation." }
      turn = try await client.interact(
        .with {
          $0.context = Harness.context; $0.intent = intent; $0.display = display
        })
      #expect(turn.stage == .needsConfirmation)
      #expect(turn.prompt == "Ready to send it?")
      #expect(turn.interaction.intentHandlingStatus == .userConfirmationRequired)
      #expect(turn.layout.sections.first?.view.kind == "chat-transcript")
      #expect(
        turn.layout.sections.first?.view.root.stack.children.contains { $0.role == "bubble-outgoing-draft" } == true)

      let yes = turn.confirmationToken
      #expect(!yes.isEmpty)
      turn = try await client.interact(
        .with {
          $0.context = Harness.context; $0.intent = turn.intent; $0.userConfirmed = true; $0.display = display
          $0.confirmationToken = yes
        })
      #expect(turn.stage == .done)
      #expect(turn.intent.identifier == identifier)
      #expect(turn.response.codeName == "success")
      let sent = try SendMessageIntentResponse(unpackingAny: turn.response.payload)
      #expect(sent.sentMessage.recipients.map(\.displayName) == ["Diana Prince"])
      #expect(
        turn.layout.sections.first?.view.root.stack.children.contains { $0.role == "bubble-outgoing-sent" } == true)
      #expect(turn.layout.sections.first?.size.width == 320)

      // Sending the same turn again is a retry: exactly one message.
      let again = try await client.interact(
        .with {
          $0.context = Harness.context; $0.intent = turn.intent; $0.userConfirmed = true; $0.confirmationToken = yes
        })
      #expect(again.interaction.identifier == turn.interaction.identifier)
    }
  }

  @Test("unsupported values are shown with their reason; a signed-out user fails with the app's activity")
  func failures() async throws {
    try await Harness.run { harness in
      let pinky = try await harness.gatewayClient.interact(
        .with {
          $0.context = Harness.context
          $0.intent = try Harness.intent(
            "INSendMessageIntent",
            payload: SendMessageIntent.with {
              $0.recipients = [.with { $0.displayName = "Pinky Nose" }]; $0.content = "hi"
            })
        })
      #expect(pinky.stage == .needsParameter)
      #expect(pinky.result.unsupported.reason.name == "noAccount")
      #expect(pinky.prompt == "Pinky Nose has no UnicornChat account.")

      var sleepy = Harness.context
      sleepy.userID = "sleepy"
      let failed = try await harness.gatewayClient.interact(
        .with {
          $0.context = sleepy
          $0.intent = try Harness.intent("INGetVisualCodeIntent", payload: GetVisualCodeIntent())
        })
      #expect(failed.stage == .failed)
      #expect(failed.response.codeName == "failureRequiringAppLaunch")
      #expect(failed.response.userActivity.userInfo["error"] == "signedOut")
    }
  }

  /// Diana's UnicornChat message to Celestra, asked for her yes: the turn and its token.
  static func askToMessageCelestra(_ harness: Harness, saying content: String) async throws
    -> Intentmesh_Gateway_V1_InteractResponse
  {
    let turn = try await harness.gatewayClient.interact(
      .with {
        $0.context = Harness.context
        $0.intent = try Harness.intent(
          "INSendMessageIntent", app: "UnicornChat",
          payload: SendMessageIntent.with {
            $0.recipients = [.with { $0.displayName = "Celestra" }]
            $0.content = content
          })
      })
    #expect(turn.stage == .needsConfirmation)
    #expect(!turn.confirmationToken.isEmpty)
    #expect(turn.changedParameters.isEmpty)
    return turn
  }

  @Test(
    "a write between the question and the yes that touches nothing agreed (Scott's message lands in Diana's inbox): the yes sends"
  )
  func unrelatedWriteKeepsTheYes() async throws {
    try await Harness.run { harness in
      let asked = try await Self.askToMessageCelestra(harness, saying: "Rainbow polish at noon")
      var scott = Harness.context
      scott.userID = "scott"
      let scottsMessage = try await harness.extensionClient.confirmAndHandle(
        .with {
          $0.context = scott
          $0.intent = try Harness.intent(
            "INSendMessageIntent", identifier: "scott-to-diana",
            payload: SendMessageIntent.with {
              $0.recipients = [.with { $0.displayName = "Diana Huang" }]
              $0.content = "See you at the meadow"
            })
        })
      #expect(scottsMessage.response.codeName == "success")
      let done = try await harness.gatewayClient.interact(
        .with {
          $0.context = Harness.context; $0.intent = asked.intent; $0.userConfirmed = true
          $0.confirmationToken = asked.confirmationToken
        })
      #expect(done.stage == .done)
      #expect(done.response.codeName == "success")
      #expect(done.changedParameters.isEmpty)
    }
  }

  @Test(
    "an agreed value changed before the yes (the content edited): Interact asks again naming it, with a new token; that yes sends the new content once"
  )
  func changedValueIsAskedAgain() async throws {
    try await Harness.run { harness in
      let asked = try await Self.askToMessageCelestra(harness, saying: "Rainbow polish at noon")
      let edited = try Self.edit(asked.intent) { $0.content = "Rainbow polish at one" }
      let again = try await harness.gatewayClient.interact(
        .with {
          $0.context = Harness.context; $0.intent = edited; $0.userConfirmed = true
          $0.confirmationToken = asked.confirmationToken
        })
      #expect(again.stage == .needsConfirmation)
      #expect(again.changedParameters == ["content"])
      #expect(again.prompt == "The content changed since you said yes. Ready to send it?")
      #expect(!again.confirmationToken.isEmpty)
      #expect(again.confirmationToken != asked.confirmationToken)
      #expect(again.interaction.intentHandlingStatus == .userConfirmationRequired)
      #expect(try SendMessageIntent(unpackingAny: again.intent.payload).content == "Rainbow polish at one")
      // Nothing was sent by the refused yes; the new yes sends the new content.
      let done = try await harness.gatewayClient.interact(
        .with {
          $0.context = Harness.context; $0.intent = again.intent; $0.userConfirmed = true
          $0.confirmationToken = again.confirmationToken
        })
      #expect(done.stage == .done)
      let sent = try SendMessageIntentResponse(unpackingAny: done.response.payload)
      #expect(sent.sentMessages.map(\.content) == ["Rainbow polish at one"])
    }
  }

  @Test(
    "a yes with a token that is not one (forged) is asked again without naming a change; a direct Handle with it is FAILED_PRECONDITION"
  )
  func forgedTokenIsAskedAgain() async throws {
    try await Harness.run { harness in
      let asked = try await Self.askToMessageCelestra(harness, saying: "hello")
      let again = try await harness.gatewayClient.interact(
        .with {
          $0.context = Harness.context; $0.intent = asked.intent; $0.userConfirmed = true
          $0.confirmationToken = "not-a-token"
        })
      #expect(again.stage == .needsConfirmation)
      #expect(again.changedParameters.isEmpty)
      #expect(again.prompt == "Ready to send it?")
      await #expect(throws: RPCError.self) {
        _ = try await harness.extensionClient.handle(
          .with {
            $0.context = Harness.context; $0.intent = asked.intent; $0.confirmationToken = "not-a-token"
          })
      }
    }
  }
}
