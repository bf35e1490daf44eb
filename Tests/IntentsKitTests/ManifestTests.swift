import SwiftProtobuf
import MessagingProtos
import Foundation
import IntentMeshProtos
@testable import IntentsKit
import Testing

@Suite("Manifests")
struct ManifestTests {
  static let messagingManifest = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Services/Messaging/Manifest")

  @Test("reads an Intents extension's Info.plist and AppIntentVocabulary.plist")
  func readsPlists() throws {
    let info = try ExtensionInfoPlist.load(from: Self.messagingManifest.appendingPathComponent("Info.plist"))
    #expect(info.displayName == "UnicornChat")
    #expect(info.intentsSupported.contains("INSendMessageIntent"))
    #expect(info.intentsRestrictedWhileLocked == ["INSendMessageIntent"])
    #expect(info.alternativeAppNames?.map(\.name) == ["Unicorn Chat", "CornChat"])
    let vocabulary = try AppIntentVocabularyPlist.load(
      from: Self.messagingManifest.appendingPathComponent("AppIntentVocabulary.plist"))
    #expect(vocabulary.intentPhrases.map(\.intentName).contains("INSendMessageIntent"))
    #expect(vocabulary.identifier(for: "Sparkly", parameterName: "INSearchForMessagesIntent.attributes") == "flagged")
    #expect(vocabulary.identifier(for: "sparkly", parameterName: "INSendMessageIntent.content") == nil)
  }

  @Test("a manifest that disagrees with the handlers is refused")
  func inconsistent() throws {
    let registry = IntentRegistry([.handler(TestDomain.Handler.self) { TestDomain.Handler() }])
    #expect(throws: ManifestError.self) {
      try DomainManifest.load(
        directory: try TestDomain.manifestDirectory(supported: ["INSendMessageIntent", "INSearchForMessagesIntent"]),
        registry: registry, vocabularyTypes: [])
    }
    #expect(throws: ManifestError.self) {
      try DomainManifest.load(
        directory: try TestDomain.manifestDirectory(supported: []), registry: registry, vocabularyTypes: [])
    }
    #expect(throws: ManifestError.self) {
      try DomainManifest.load(
        directory: try TestDomain.manifestDirectory(restricted: ["INPayBillIntent"]), registry: registry,
        vocabularyTypes: [])
    }
    let fine = try DomainManifest.load(
      directory: try TestDomain.manifestDirectory(), registry: registry, vocabularyTypes: [.contactName])
    #expect(fine.proto.vocabularyTypes == [.contactName])
  }

  @Test("an unreadable plist names its path")
  func unreadable() {
    #expect(throws: ManifestError.self) {
      try ExtensionInfoPlist.load(from: URL(fileURLWithPath: "/nonexistent/Info.plist"))
    }
  }
}
