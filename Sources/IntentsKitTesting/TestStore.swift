internal import Foundation
package import IntentsKit
internal import IntentsRuntime
package import Logging

/// A throwaway store for tests. A fresh SQLite file by default; when `INTENTMESH_TEST_POSTGRES_URL`
/// names a PostgreSQL server, a fresh schema there instead, dropped afterwards — so every store
/// suite runs against both back ends (CI runs them twice).
package enum TestStore {
  /// The PostgreSQL server tests use, if any.
  package static var postgresURL: String? {
    ProcessInfo.processInfo.environment["INTENTMESH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
  }

  /// Which back end `with` opens: "postgres" or "sqlite".
  package static var backend: String { postgresURL == nil ? "sqlite" : "postgres" }

  /// Opens a fresh store named after `name`, runs `body`, closes and removes the store.
  package static func with<T: Sendable>(
    named name: String, logger: Logger = TestStore.quietLogger, _ body: (any IntentStore) async throws -> T
  ) async throws -> T {
    let opened = try await open(named: name, logger: logger)
    do {
      let result = try await body(opened.store)
      try await opened.dispose()
      return result
    } catch {
      try? await opened.dispose()
      throw error
    }
  }

  /// A store and how to get rid of it.
  package struct Opened: Sendable {
    package let store: any IntentStore
    /// A location another process can open to share this store.
    package let location: String
    package let dispose: @Sendable () async throws -> Void
  }

  /// Opens a fresh store; call `dispose` when done.
  package static func open(named name: String, logger: Logger = TestStore.quietLogger) async throws -> Opened {
    guard let url = postgresURL else {
      let path = TemporaryDatabase.path(named: name)
      // Two reader connections, not four: the suite runs many stores at once, and past ~1,360 open
      // descriptors Foundation's Process.run() (which lists /proc/self/fd in a 32 KiB buffer) can
      // read past that buffer and crash the test process (swift-corelibs-foundation #5472).
      let store = try await SQLiteStore.open(path: path, logger: logger, readers: 2)
      return Opened(store: store, location: path) {
        try await store.close()
        TemporaryDatabase.remove(path)
      }
    }
    guard case .postgres(var location) = try StoreLocation(parsing: url) else {
      throw StoreLocationError("INTENTMESH_TEST_POSTGRES_URL must be a postgres:// URL")
    }
    location.schema = freshSchema(name)
    let store = try await PostgresStore.open(location, defaultSchema: location.schema!, logger: logger)
    let shared = "\(url)\(url.contains("?") ? "&" : "?")schema=\(location.schema!)"
    return Opened(store: store, location: shared) {
      try await store.dropSchema()
      try await store.close()
    }
  }

  /// A schema name no other test uses.
  package static func freshSchema(_ name: String) -> String {
    let base = String(name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "_" }.prefix(30))
    let suffix = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
    return "t_\(base)_\(suffix)"
  }

  package static var quietLogger: Logger {
    var logger = Logger(label: "test.store")
    logger.logLevel = .warning
    return logger
  }
}
