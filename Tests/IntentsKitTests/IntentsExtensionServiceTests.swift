import Foundation
import GRPCCore
import IntentMeshProtos
@testable import IntentsKit
import IntentsKitTesting
import MessagingProtos
import SwiftProtobuf
import Testing

@Suite("IntentsExtension service: dispatch, defaults, exactly-once")
struct IntentsExtensionServiceTests {
  typealias Intent = TestDomain.Intent

  func withDomain<T: Sendable>(
    restricted: [String] = ["INSendMessageIntent"],
    _ body: (InProcessDomain.Client, any IntentStore) async throws -> T
  ) async throws -> T {
    let domain = InProcessDomain(
      definition: TestDomain.definition(), manifestDirectory: try TestDomain.manifestDirectory(restricted: restricted),
      now: { Date(timeIntervalSince1970: 1_779_350_400) })
    return try await domain.run { client, _, _, store in try await body(client, store) }
  }

  func expectStatus(
    _ code: RPCError.Code, containing text: String, _ call: () async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    do {
      try await call()
      Issue.record("expected \(code)", sourceLocation: sourceLocation)
    } catch let error as RPCError {
      #expect(error.code == code, sourceLocation: sourceLocation)
      #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
    } catch {
      Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
  }

  @Test("Describe serves the manifest: plist and handler declarations together")
  func describe() async throws {
    try await withDomain { client, _ in
      let manifest = try await client.describe(.init()).manifest
      #expect(manifest.appName == "TestChat")
      #expect(manifest.alternativeAppNames.map(\.name) == ["Test Chat"])
      #expect(manifest.intentsRestrictedWhileLocked == ["INSendMessageIntent"])
      let intent = try #require(manifest.intents.first)
      #expect(intent.payloadType == "intentmesh.messaging.v1.SendMessageIntent")
      #expect(intent.responseType == "intentmesh.messaging.v1.SendMessageIntentResponse")
      #expect(intent.parameters.map(\.keyPath) == ["recipients", "content"])
      #expect(intent.parameters[0].isArray && intent.parameters[0].prompt == "To whom?")
      #expect(intent.requiresUserConfirmation && intent.restrictedWhileLocked)
      #expect(intent.confirmationPrompt == "Ready to send it?")
    }
  }

  @Test("bad input gets a clear status")
  func badInput() async throws {
    try await withDomain { client, _ in
      await expectStatus(.notFound, containing: "INBookRestaurantReservationIntent") {
        var intent = try TestDomain.intent(Intent())
        intent.intentClass = "INBookRestaurantReservationIntent"
        _ = try await client.resolve(
          .with {
            $0.context = TestDomain.context(); $0.intent = intent
          })
      }
      await expectStatus(.invalidArgument, containing: "must be intentmesh.messaging.v1.SendMessageIntent") {
        var intent = try TestDomain.intent(Intent())
        intent.payload = try .init(message: Intentmesh_Messaging_V1_GetVisualCodeIntent())
        _ = try await client.resolve(
          .with {
            $0.context = TestDomain.context(); $0.intent = intent
          })
      }
      await expectStatus(.invalidArgument, containing: "does not decode") {
        var intent = try TestDomain.intent(Intent())
        intent.payload.value = Data([0xFF, 0xFF, 0xFF])
        _ = try await client.confirm(
          .with {
            $0.context = TestDomain.context(); $0.intent = intent
          })
      }
      await expectStatus(.failedPrecondition, containing: "INSendMessageIntent is restricted while locked") {
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = TestDomain.context(locked: true); $0.intent = try TestDomain.intent(Intent(), identifier: "x")
          })
      }
      await expectStatus(.unauthenticated, containing: "authorization") {
        _ = try await client.resolve(.with { $0.intent = try TestDomain.intent(Intent()) })
      }
      await expectStatus(.invalidArgument, containing: "time zone") {
        var context = TestDomain.context()
        context.timeZone = "Mars/Olympus"
        _ = try await client.resolve(
          .with {
            $0.context = context; $0.intent = try TestDomain.intent(Intent())
          })
      }
      await expectStatus(.invalidArgument, containing: "has no parameter \"sender\"") {
        _ = try await client.resolve(
          .with {
            $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(Intent()); $0.parameters = ["sender"]
          })
      }
      await expectStatus(.invalidArgument, containing: "needs intent.identifier") {
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(Intent())
          })
      }
      await expectStatus(.unimplemented, containing: "has no live updates") {
        try await client.startSendingUpdates(
          .with {
            $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(Intent())
          }
        ) { response in for try await _ in response.messages {} }
      }
    }
  }

  @Test("a device that is not locked may use a restricted intent; unrestricted intents work while locked")
  func lockedRules() async throws {
    try await withDomain(restricted: []) { client, _ in
      let response = try await client.resolve(
        .with {
          $0.context = TestDomain.context(locked: true); $0.intent = try TestDomain.intent(Intent())
        })
      #expect(response.resolutions.count == 2)
    }
  }

  @Test("Resolve: per-element results, defaults for parameters without a resolver, resolved values written back")
  func resolve() async throws {
    try await withDomain { client, _ in
      let empty = try await client.resolve(
        .with {
          $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(Intent())
        })
      #expect(empty.resolutions[0].results.map(\.needsValue.prompt) == ["To whom?"])
      #expect(empty.resolutions[1].results.first?.kind == .notRequired(.init()))
      #expect(!empty.complete)

      let mixed = Intent.with {
        $0.recipients = [
          .with { $0.displayName = "Celestra" }, .with { $0.displayName = "Diana" },
          .with { $0.displayName = "Nobody" },
        ]
        $0.content = "hello"
      }
      let response = try await client.resolve(
        .with {
          $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(mixed)
        })
      let recipients = response.resolutions[0]
      #expect(recipients.isArray && recipients.results.count == 3)
      #expect(recipients.results[0].success.value.displayText == "Celestra")
      #expect(recipients.results[1].disambiguation.options.map(\.displayText) == ["Diana Prince", "Diana Ross"])
      #expect(recipients.results[2].unsupported.reason.message == "No one is called Nobody.")
      #expect(response.resolutions[1].results[0].success.value.displayText == "hello")
      #expect(!response.complete)
      let resolved = try Intent(unpackingAny: response.resolvedIntent.payload)
      #expect(resolved.recipients[0].customIdentifier == "celestra")
      #expect(resolved.recipients[1].displayName == "Diana")

      let settled = Intent.with {
        $0.recipients = [.with { $0.displayName = "Celestra" }]; $0.content = "hi"
      }
      let done = try await client.resolve(
        .with {
          $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(settled)
        })
      #expect(done.complete)
    }
  }

  @Test("a handler that breaks the array rule is an INTERNAL error, not a crash")
  func handlerContract() async throws {
    try await withDomain { client, _ in
      let intent = Intent.with {
        $0.recipients = [.with { $0.displayName = "short" }, .with { $0.displayName = "Celestra" }]
      }
      await expectStatus(.internalError, containing: "must be the only result") {
        _ = try await client.resolve(
          .with {
            $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(intent)
          })
      }
    }
  }

  @Test("Confirm defaults to ready, and asks the user when the intent needs confirmation")
  func confirm() async throws {
    try await withDomain { client, _ in
      let response = try await client.confirm(
        .with {
          $0.context = TestDomain.context(); $0.intent = try TestDomain.intent(Intent())
        })
      #expect(response.response.codeName == "ready")
      #expect(response.interaction.intentHandlingStatus == .userConfirmationRequired)
      #expect(response.response.userActivity.activityType == "INSendMessageIntent")
      #expect(response.response.userActivity.interaction.intent.intentClass == "INSendMessageIntent")
    }
  }

  @Test("Handle is exactly-once per (user, identifier) and replays the stored answer")
  func exactlyOnce() async throws {
    try await withDomain { client, store in
      let intent = try TestDomain.intent(.with { $0.content = "hello" }, identifier: "intent-1")
      let first = try await client.confirmAndHandle(
        .with {
          $0.context = TestDomain.context(); $0.intent = intent
        })
      #expect(first.response.codeName == "success" && !first.replayed)
      #expect(first.interaction.intentHandlingStatus == .success)
      #expect(first.response.userActivity.activityType == "INSendMessageIntent")
      let typed = try Intentmesh_Messaging_V1_SendMessageIntentResponse(unpackingAny: first.response.payload)
      #expect(typed.sentMessage.identifier == "intent-1")

      let second = try await client.confirmAndHandle(
        .with {
          $0.context = TestDomain.context(); $0.intent = intent
        })
      #expect(second.replayed)
      // The first answer, as it was given (the ledger keeps it without the interaction its
      // response carries, and restores it).
      #expect(second.interaction == first.interaction)
      #expect(second.response == first.response)
      #expect(try await TestDomain.effectCount(store) == 1)

      // The same identifier for another user is another intent.
      _ = try await client.confirmAndHandle(
        .with {
          $0.context = TestDomain.context(user: "scott"); $0.intent = intent
        })
      #expect(try await TestDomain.effectCount(store) == 2)

      await expectStatus(.failedPrecondition, containing: "intent identifier intent-1 was already handled") {
        let changed = try TestDomain.intent(.with { $0.content = "something else" }, identifier: "intent-1")
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = TestDomain.context(); $0.intent = changed
          })
      }
      #expect(try await TestDomain.effectCount(store) == 2)
    }
  }

  @Test("concurrent retries of one Handle take effect once")
  func concurrentRetries() async throws {
    try await withDomain { client, store in
      let intent = try TestDomain.intent(.with { $0.content = "race" }, identifier: "intent-race")
      let replays = try await withThrowingTaskGroup(of: Bool.self) { group in
        for _ in 0..<20 {
          group.addTask {
            try await client.confirmAndHandle(
              .with {
                $0.context = TestDomain.context(); $0.intent = intent
              }
            ).replayed
          }
        }
        return try await group.reduce(into: 0) { count, replayed in if replayed { count += 1 } }
      }
      #expect(replays == 19)
      #expect(try await TestDomain.effectCount(store) == 1)
    }
  }

  @Test("a handler that throws leaves nothing behind, and the retry takes effect")
  func rollback() async throws {
    try await withDomain { client, store in
      await expectStatus(.internalError, containing: "request id") {
        let intent = try TestDomain.intent(.with { $0.content = "explode after write" }, identifier: "intent-2")
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = TestDomain.context(); $0.intent = intent
          })
      }
      #expect(try await TestDomain.effectCount(store) == 0)
      let retry = try TestDomain.intent(.with { $0.content = "explode after write" }, identifier: "intent-2")
      await expectStatus(.internalError, containing: "Handle failed") {
        _ = try await client.confirmAndHandle(
          .with {
            $0.context = TestDomain.context(); $0.intent = retry
          })
      }
      #expect(try await TestDomain.effectCount(store) == 0)
    }
  }

  @Test("a custom user activity keeps its user info and carries the interaction")
  func customActivity() async throws {
    try await withDomain { client, _ in
      let intent = try TestDomain.intent(.with { $0.content = "signed out" }, identifier: "intent-3")
      let response = try await client.confirmAndHandle(
        .with {
          $0.context = TestDomain.context(); $0.intent = intent
        })
      #expect(response.response.codeName == "failureRequiringAppLaunch")
      #expect(response.interaction.intentHandlingStatus == .deferredToApplication)
      #expect(response.response.userActivity.userInfo == ["error": "signedOut"])
      #expect(response.response.userActivity.activityType == "INSendMessageIntent")
      #expect(response.response.userActivity.interaction.intentResponse.codeName == "failureRequiringAppLaunch")
    }
  }

  @Test("ConfigureView without a view controller declines and gives display values")
  func configureViewDefaults() async throws {
    try await withDomain { client, _ in
      let intent = try TestDomain.intent(
        .with {
          $0.recipients = [.with { $0.displayName = "Celestra" }]; $0.content = "hi"
        })
      let response = try await client.configureView(
        .with {
          $0.context = TestDomain.context()
          $0.interaction = .with {
            $0.intent = intent; $0.intentHandlingStatus = .ready
          }
          $0.parameters = [
            .with {
              $0.parameterClass = "INSendMessageIntent"; $0.keyPath = "recipients"
            }
          ]
        })
      #expect(!response.configured)
      #expect(response.displayValues.map(\.displayText) == ["Celestra"])
      #expect(response.displayValues.map(\.label) == ["To"])
      await expectStatus(.invalidArgument, containing: "neither INSendMessageIntent") {
        _ = try await client.configureView(
          .with {
            $0.context = TestDomain.context()
            $0.interaction = .with { $0.intent = intent }
            $0.parameters = [
              .with {
                $0.parameterClass = "INRequestRideIntent"; $0.keyPath = "pickupLocation"
              }
            ]
          })
      }
    }
  }

  @Test("SetUserVocabulary replaces the set and refuses types the domain does not use")
  func vocabulary() async throws {
    try await withDomain { client, store in
      let stored = try await client.setUserVocabulary(
        .with {
          $0.context = TestDomain.context(); $0.vocabularyType = .contactName; $0.strings = ["A", "B", "a"]
        })
      #expect(stored.storedCount == 2 && stored.discardedCount == 0)
      _ = try await client.setUserVocabulary(
        .with {
          $0.context = TestDomain.context(); $0.vocabularyType = .contactName; $0.strings = ["C"]
        })
      let entries = try await store.read {
        try await UserVocabulary.entries(userID: "diana", type: .contactName, in: $0)
      }
      #expect(entries.map(\.phrase) == ["C"])
      await expectStatus(.invalidArgument, containing: "not paymentsAccountNickname") {
        _ = try await client.setUserVocabulary(
          .with {
            $0.context = TestDomain.context(); $0.vocabularyType = .paymentsAccountNickname; $0.strings = ["x"]
          })
      }
    }
  }
}
