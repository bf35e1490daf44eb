import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
@testable import Messaging
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("messaging-service over an in-process transport")
struct MessagingServiceTests {
  let domain = InProcessDomain(
    definition: UnicornChat.definition(identifiers: SequentialIdentifierGenerator(prefix: "svc")),
    manifestDirectory: MessagingFixture.manifest, now: { MessagingFixture.now })

  static let context = Intentmesh_V1_RequestContext.with {
    $0.userID = "diana"
    $0.timeZone = "Europe/Zurich"
    $0.locale = "en-US"
  }

  static func intent(_ message: SendMessageIntent, identifier: String = "") throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = "INSendMessageIntent"
      $0.identifier = identifier
      $0.appName = "UnicornChat"
      $0.payload = try .init(message: message)
    }
  }

  @Test("Describe: four intents, sending restricted while locked, vocabulary types, prompts")
  func describe() async throws {
    try await domain.run { client, health, _, _ in
      let manifest = try await client.describe(.init()).manifest
      #expect(manifest.appName == "UnicornChat")
      #expect(manifest.alternativeAppNames.map(\.name) == ["Unicorn Chat", "CornChat"])
      #expect(
        manifest.intents.map(\.intentClass) == [
          "INSendMessageIntent", "INSearchForMessagesIntent", "INSetMessageAttributeIntent", "INGetVisualCodeIntent",
        ])
      #expect(manifest.intentsRestrictedWhileLocked == ["INSendMessageIntent"])
      #expect(manifest.vocabularyTypes == [.contactName, .contactGroupName])
      let send = manifest.intents[0]
      #expect(send.parameters.map(\.keyPath) == ["recipients", "content", "speakableGroupName"])
      #expect(send.parameters[0].prompt == "To whom?")
      #expect(send.requiresUserConfirmation && send.restrictedWhileLocked)
      #expect(manifest.intentPhrases.contains { $0.intentName == "INGetVisualCodeIntent" })
      #expect(try await health.check(.init()).status == .serving)
    }
  }

  @Test("the session 225 conversation: resolve until complete, confirm, handle, replay")
  func conversation() async throws {
    try await domain.run { client, _, _, _ in
      var intent = try Self.intent(.with { $0.recipients = [.with { $0.displayName = "Diana" }] }, identifier: "chat-1")
      var round = try await client.resolve(
        .with {
          $0.context = Self.context; $0.intent = intent
        })
      #expect(!round.complete)
      let options = round.resolutions[0].results[0].disambiguation.options
      #expect(options.map(\.displayText) == ["Diana Prince", "Diana Ross"])
      #expect(round.resolutions[1].results[0].needsValue.prompt == "What do you want to say to Diana?")

      // The user picks Diana Ross and says what to send.
      var message = try SendMessageIntent(unpackingAny: round.resolvedIntent.payload)
      message.recipients = [try Person(unpackingAny: options[1].value)]
      message.content = "Great job on your presentation."
      intent.payload = try .init(message: message)
      round = try await client.resolve(
        .with {
          $0.context = Self.context; $0.intent = intent
        })
      #expect(round.complete)
      #expect(round.resolutions[2].results[0].kind == .notRequired(.init()))

      let confirm = try await client.confirm(
        .with {
          $0.context = Self.context; $0.intent = round.resolvedIntent
        })
      #expect(confirm.response.codeName == "ready")
      #expect(confirm.interaction.intentHandlingStatus == .userConfirmationRequired)

      let handled = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = round.resolvedIntent
        })
      #expect(handled.response.codeName == "success")
      #expect(handled.interaction.intentHandlingStatus == .success)
      let response = try SendMessageIntentResponse(unpackingAny: handled.response.payload)
      #expect(response.sentMessage.recipients.map(\.displayName) == ["Diana Ross"])
      #expect(response.sentMessage.content == "Great job on your presentation.")

      let again = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = round.resolvedIntent
        })
      #expect(again.replayed)
      #expect(try SendMessageIntentResponse(unpackingAny: again.response.payload) == response)
    }
  }

  @Test("sending while locked is refused before any handler runs; searching is not")
  func locked() async throws {
    try await domain.run { client, _, _, _ in
      var locked = Self.context
      locked.deviceLocked = true
      do {
        _ = try await client.resolve(
          .with {
            $0.context = locked; $0.intent = try Self.intent(.init())
          })
        Issue.record("expected FAILED_PRECONDITION")
      } catch let error as RPCError {
        #expect(error.code == .failedPrecondition)
        #expect(error.message.contains("INSendMessageIntent") && error.message.contains("unlock"))
      }
      let search = try await client.resolve(
        .with {
          $0.context = locked
          $0.intent = .with {
            $0.intentClass = "INSearchForMessagesIntent"
            $0.payload = try! .init(message: SearchForMessagesIntent())
          }
        })
      #expect(search.complete)
    }
  }

  @Test("ConfigureView: the chat transcript claims the message parameters, draft then sent")
  func chatTranscript() async throws {
    try await domain.run { client, _, _, _ in
      let intent = try Self.intent(
        .with {
          $0.recipients = [StoredContact.celestra.person]; $0.content = "Are you ready for your presentation?"
        })
      func configure(
        _ status: Intentmesh_V1_IntentHandlingStatus, context: Intentmesh_V1_HostedViewContext = .siriSnippet
      )
        async throws -> Intentmesh_V1_ConfigureViewResponse
      {
        try await client.configureView(
          .with {
            $0.context = Self.context
            $0.interaction = .with {
              $0.intent = intent; $0.intentHandlingStatus = status
            }
            $0.hostedViewContext = context
            $0.maximumSize = .with {
              $0.width = 375; $0.height = 600
            }
          })
      }
      let draft = try await configure(.ready)
      #expect(draft.configured)
      #expect(draft.configuredParameters.map(\.keyPath) == ["recipients", "content", "speakableGroupName"])
      #expect(draft.view.kind == "chat-transcript")
      let rows = draft.view.root.stack.children
      #expect(rows.first?.text.text == "To: Celestra")
      #expect(
        rows.contains { $0.role == "bubble-outgoing-draft" && $0.text.text == "Are you ready for your presentation?" })
      #expect(draft.desiredSize.width == 375)
      #expect(draft.displayValues.map(\.displayText) == ["Celestra", "Are you ready for your presentation?", ""])

      let sent = try await configure(.success)
      #expect(sent.view.root.stack.children.contains { $0.role == "bubble-outgoing-sent" })

      let maps = try await configure(.ready, context: .mapsCard)
      #expect(!maps.configured && maps.configuredParameters.isEmpty)
    }
  }

  @Test("a name added to the user's vocabulary resolves to its contact")
  func vocabulary() async throws {
    try await domain.run { client, _, _, _ in
      let before = try await client.resolve(
        .with {
          $0.context = Self.context;
          $0.intent = try Self.intent(.with { $0.recipients = [.with { $0.displayName = "Moonbeam" }] })
        })
      #expect(before.resolutions[0].results[0].unsupported.reason.name == "noValidHandle")
      let stored = try await client.setUserVocabulary(
        .with {
          $0.context = Self.context
          $0.vocabularyType = .contactName
          $0.speakables = [
            .with {
              $0.spokenPhrase = "Moonbeam"; $0.vocabularyIdentifier = "celestra"
            }
          ]
        })
      #expect(stored.storedCount == 1)
      let after = try await client.resolve(
        .with {
          $0.context = Self.context;
          $0.intent = try Self.intent(.with { $0.recipients = [.with { $0.displayName = "Moonbeam" }] })
        })
      #expect(after.resolutions[0].results[0].success.value.displayText == "Celestra")
    }
  }

  @Test("GetVisualCode through the service returns a PNG")
  func visualCode() async throws {
    try await domain.run { client, _, _, _ in
      let intent = try Intentmesh_V1_Intent.with {
        $0.intentClass = "INGetVisualCodeIntent"
        $0.payload = try .init(message: GetVisualCodeIntent())
      }
      let resolved = try await client.resolve(
        .with {
          $0.context = Self.context; $0.intent = intent
        })
      #expect(resolved.resolutions[0].results[0].success.value.displayText == "contact")
      let handled = try await client.confirmAndHandle(
        .with {
          $0.context = Self.context; $0.intent = resolved.resolvedIntent
        })
      let response = try GetVisualCodeIntentResponse(unpackingAny: handled.response.payload)
      #expect(response.visualCodeImage.data.starts(with: [0x89, 0x50, 0x4E, 0x47]))
      #expect(!handled.replayed)
    }
  }
}

extension StoredContact {
  static let celestra = MessagingSeed.contacts[1]
}
