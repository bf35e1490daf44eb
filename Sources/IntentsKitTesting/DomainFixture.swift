package import Foundation
package import IntentMeshProtos
package import IntentsKit
internal import IntentsRuntime

/// A domain's store for tests, set up as its service sets it up — the runtime's migrations, the
/// domain's, then its seed, all from its `DomainDefinition` — in a fresh `TestStore` (SQLite, or
/// PostgreSQL when the run names one), with a manual clock and a time zone: handlers called with no
/// network, the way the runtime calls them (handle inside a write transaction).
package struct DomainFixture: Sendable {
  package let store: any IntentStore
  /// The domain's time: fixed at the start the test chose until the test advances it.
  package let clock: ManualClock
  package let timeZone: TimeZone
  /// The user calls act for unless a test names another.
  package let user: String
  /// The intent identifier of calls unless a test names another.
  package let intentIdentifier: String

  /// Opens a fresh store for `definition`, runs `body` with the fixture, removes the store.
  package static func with<T: Sendable>(
    _ definition: DomainDefinition, user: String, timeZone: TimeZone, start: Date,
    intentIdentifier: String = "test-intent", _ body: (DomainFixture) async throws -> T
  ) async throws -> T {
    try await TestStore.with(named: "\(definition.serviceName)-test") { store in
      try await SchemaMigrator.migrate(store, SchemaMigrator.runtime + definition.migrations)
      try await definition.seed(store)
      return try await body(
        DomainFixture(
          store: store, clock: ManualClock(start: start), timeZone: timeZone, user: user,
          intentIdentifier: intentIdentifier))
    }
  }

  /// What a call of `user` (default: the fixture's) knows, at `now` (default: the clock's).
  package func context(user: String? = nil, identifier: String? = nil, now: Date? = nil) -> IntentContext {
    IntentContext(
      userID: user ?? self.user, timeZone: timeZone, intentIdentifier: identifier ?? intentIdentifier,
      now: now ?? clock.now())
  }

  /// Runs handle in a write transaction, as the runtime does.
  package func handle<H: IntentHandler>(
    _ handler: H, _ intent: H.Intent, user: String? = nil, identifier: String? = nil, now: Date? = nil
  ) async throws -> IntentAnswer<H.Response> {
    let context = context(user: user, identifier: identifier, now: now)
    return try await store.write { try await handler.handle(intent: intent, context: context, database: $0) }
  }

  /// Runs confirm, as the runtime does (outside any transaction).
  package func confirm<H: IntentHandler>(
    _ handler: H, _ intent: H.Intent, user: String? = nil, now: Date? = nil
  ) async throws -> IntentAnswer<H.Response> {
    try await handler.confirm(intent: intent, context: context(user: user, now: now))
  }

  /// Replaces the fixture user's vocabulary of `type` with `entries` (phrase, identifier).
  package func setVocabulary(_ type: Intentmesh_V1_VocabularyStringType, _ entries: [(String, String)]) async throws {
    let user = user
    let entries = entries.map { UserVocabulary.Entry(phrase: $0.0, vocabularyIdentifier: $0.1) }
    try await store.write { database in
      try await UserVocabulary.replace(userID: user, type: type, with: entries, in: database)
    }
  }

  /// A service's bundled manifest folder in this repository: `Services/<folder>/Manifest`.
  package static func manifest(of folder: String, file: StaticString = #filePath) -> URL {
    var directory = URL(fileURLWithPath: "\(file)").deletingLastPathComponent()
    while directory.path != "/",
      !FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path)
    {
      directory.deleteLastPathComponent()
    }
    return directory.appendingPathComponent("Services/\(folder)/Manifest")
  }
}
