import SwiftProtobuf
import Foundation
import IntentMeshProtos
@testable import IntentsKit
import MessagingProtos
import SQLKit

extension Intentmesh_Messaging_V1_SendMessageIntentResponse: IntentResponseMessage {}

/// A small domain on the messaging contract that exercises the runtime: it counts its effects in a
/// table so tests can see exactly-once and rollback.
enum TestDomain {
  typealias Intent = Intentmesh_Messaging_V1_SendMessageIntent
  typealias Response = Intentmesh_Messaging_V1_SendMessageIntentResponse

  struct Handler: IntentHandler {
    typealias Intent = TestDomain.Intent
    typealias Response = TestDomain.Response
    static let intentClass = "INSendMessageIntent"
    static let requiresUserConfirmation = true
    static let confirmationPrompt = "Ready to send it?"
    static var parameters: [IntentParameter<Self>] {
      [
        .array("recipients", \.recipients, prompt: "To whom?", label: "To", resolve: Self.resolveRecipients),
        .value("content", \.content, label: "Message"),
      ]
    }

    func resolveRecipients(intent: Intent, context: IntentContext) async throws -> [ResolutionResult<
      Intentmesh_V1_Person
    >] {
      guard !intent.recipients.isEmpty else { return [.needsValue(prompt: "To whom?")] }
      return intent.recipients.map { person in
        switch person.displayName {
        case "Diana":
          return .disambiguation(
            [.with { $0.displayName = "Diana Prince" }, .with { $0.displayName = "Diana Ross" }], prompt: "Which Diana?"
          )
        case "Nobody": return .unsupported(ResolutionReason(message: "No one is called Nobody."))
        case "short": return .needsValue()
        default:
          return .success(
            .with {
              $0.displayName = person.displayName; $0.customIdentifier = person.displayName.lowercased()
            })
        }
      }
    }

    func handle(intent: Intent, context: IntentContext, database: any SQLDatabase) async throws -> Answer {
      if intent.content == "explode" { throw TestFailure.exploded }
      try await database.raw(
        "INSERT INTO test_effects (user_id, content) VALUES (\(bind: context.userID), \(bind: intent.content))"
      ).run()
      if intent.content == "explode after write" { throw TestFailure.exploded }
      if intent.content == "signed out" {
        return IntentAnswer(
          code: .failureRequiringAppLaunch, userActivity: UserActivityDraft(userInfo: ["error": "signedOut"]))
      }
      var response = Response(code: .success)
      response.sentMessage = .with {
        $0.content = intent.content; $0.identifier = context.intentIdentifier
      }
      return IntentAnswer(response)
    }
  }

  enum TestFailure: Error { case exploded }

  static let migrations = [
    SchemaMigration(
      id: "test-1", statements: ["CREATE TABLE test_effects (user_id TEXT NOT NULL, content TEXT NOT NULL)"])
  ]

  static func definition() -> DomainDefinition {
    DomainDefinition(
      serviceName: "test-service", vocabularyTypes: [.contactName], migrations: migrations, seed: { _ in }
    ) { _ in
      IntentRegistry([.handler(Handler.self) { Handler() }])
    }
  }

  static func effectCount(_ store: any IntentStore) async throws -> Int {
    try await store.read {
      try await $0.raw("SELECT COUNT(*) AS n FROM test_effects").first()?.decode(column: "n", as: Int.self) ?? 0
    }
  }

  /// A manifest folder with an Info.plist for the test domain.
  static func manifestDirectory(
    restricted: [String] = ["INSendMessageIntent"], supported: [String] = ["INSendMessageIntent"]
  ) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "intentmesh-manifest-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let plist: [String: Any] = [
      "CFBundleDisplayName": "TestChat",
      "INAlternativeAppNames": [["INAlternativeAppName": "Test Chat"]],
      "NSExtension": [
        "NSExtensionAttributes": ["IntentsSupported": supported, "IntentsRestrictedWhileLocked": restricted],
        "NSExtensionPointIdentifier": "com.apple.intents-service",
      ],
    ]
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
    try data.write(to: directory.appendingPathComponent("Info.plist"))
    let model = #"{"intents": [{"intent": "INSendMessageIntent", "slots": [], "samples": ["send a test message"]}]}"#
    try Data(model.utf8).write(to: directory.appendingPathComponent("InteractionModel.json"))
    return directory
  }

  static func intent(_ message: Intent, identifier: String = "") throws -> Intentmesh_V1_Intent {
    try .with {
      $0.intentClass = "INSendMessageIntent"
      $0.identifier = identifier
      $0.payload = try .init(message: message)
    }
  }

  static func context(user: String = "diana", locked: Bool = false) -> Intentmesh_V1_RequestContext {
    .with {
      $0.userID = user
      $0.deviceLocked = locked
      $0.timeZone = "Europe/Zurich"
    }
  }
}
