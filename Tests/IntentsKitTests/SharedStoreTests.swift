import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import SQLKit
import Testing

/// What two processes sharing one store rely on, run on the back end `TestStore` picks (SQLite
/// here, PostgreSQL when INTENTMESH_TEST_POSTGRES_URL is set): schema changes once, no lost update.
@Suite("Shared store (SQLite, or PostgreSQL when INTENTMESH_TEST_POSTGRES_URL is set)")
struct SharedStoreTests {
  static let migrations = [
    SchemaMigration(
      id: "counter-1",
      statements: [
        "CREATE TABLE counters (name TEXT PRIMARY KEY, value BIGINT NOT NULL)",
        "INSERT INTO counters (name, value) VALUES ('hits', 0)",
      ])
  ]

  /// Opens a second store on the same location as `opened`, as a second replica would.
  static func replica(of opened: TestStore.Opened) async throws -> any IntentStore {
    let location = try StoreLocation(parsing: opened.location)
    return try await StoreOpener.open(location, defaultSchema: "unused", logger: TestStore.quietLogger)
  }

  static func value(_ store: any IntentStore) async throws -> Int64 {
    try await store.read {
      try await $0.raw("SELECT value FROM counters WHERE name = 'hits'").first()?.decode(
        column: "value", as: Int64.self)
        ?? -1
    }
  }

  @Test("two replicas migrating at once apply each migration once")
  func concurrentMigrations() async throws {
    let opened = try await TestStore.open(named: "shared-migrate")
    let second = try await Self.replica(of: opened)
    async let one = opened.store.changingSchemaReturning {
      try await SchemaMigrator.migrate(opened.store, Self.migrations)
    }
    async let two = second.changingSchemaReturning { try await SchemaMigrator.migrate(second, Self.migrations) }
    let applied = try await [one, two]
    #expect(applied.flatMap { $0 } == ["counter-1"])
    #expect(try await Self.value(second) == 0)
    try await second.close()
    try await opened.dispose()
  }

  @Test("read-modify-write from two replicas at once loses no update")
  func noLostUpdate() async throws {
    let opened = try await TestStore.open(named: "shared-counter")
    try await SchemaMigrator.migrate(opened.store, Self.migrations)
    let second = try await Self.replica(of: opened)
    let stores = [opened.store, second]
    try await withThrowingTaskGroup(of: Void.self) { group in
      for n in 0..<60 {
        let store = stores[n % 2]
        group.addTask {
          try await store.write { database in
            let current =
              try await database.raw("SELECT value FROM counters WHERE name = 'hits'").first()?.decode(
                column: "value", as: Int64.self) ?? 0
            try await database.raw("UPDATE counters SET value = \(bind: current + 1) WHERE name = 'hits'").run()
          }
        }
      }
      try await group.waitForAll()
    }
    #expect(try await Self.value(opened.store) == 60)
    try await second.close()
    try await opened.dispose()
  }

  @Test("a handled intent recorded by one replica is what the other finds")
  func handledLedgerShared() async throws {
    let opened = try await TestStore.open(named: "shared-ledger")
    try await SchemaMigrator.migrate(opened.store, SchemaMigrator.runtime)
    let second = try await Self.replica(of: opened)
    let entry = HandledIntentLedger.Entry(
      intentClass: "INSendPaymentIntent", payload: Data([1, 2]), response: Data([3]))
    try await opened.store.write {
      try await HandledIntentLedger.record(userID: "diana", identifier: "i-1", entry: entry, at: 1, in: $0)
    }
    let found = try await second.read {
      try await HandledIntentLedger.entry(userID: "diana", identifier: "i-1", in: $0)
    }
    #expect(found?.response == Data([3]))
    await #expect(throws: (any Error).self) {
      try await second.write {
        try await HandledIntentLedger.record(userID: "diana", identifier: "i-1", entry: entry, at: 2, in: $0)
      }
    }
    try await second.close()
    try await opened.dispose()
  }

  /// A transaction whose task is cancelled (a client that stops a live search) ends on its
  /// connection: the connection's next transaction begins, and nothing the cancelled one wrote lands.
  @Test("a cancelled transaction is rolled back and leaves its connection usable")
  func cancelledTransaction() async throws {
    let opened = try await TestStore.open(named: "shared-cancel")
    let store = opened.store
    try await SchemaMigrator.migrate(store, Self.migrations)
    for write in [false, true] {
      let started = AsyncStream<Void>.makeStream()
      let transaction = Task {
        let body: @Sendable (any SQLDatabase) async throws -> Void = { database in
          if write { try await database.raw("UPDATE counters SET value = 7").run() }
          started.continuation.yield()
          // Waits for the cancellation, then reads on: the query may be refused as cancelled.
          try? await Task.sleep(for: .seconds(30))
          try await database.raw("SELECT value FROM counters").run()
          throw CancellationError()
        }
        try await write ? store.write(body) : store.read(body)
      }
      var iterator = started.stream.makeAsyncIterator()
      await iterator.next()
      transaction.cancel()
      _ = await transaction.result
      // Every connection begins its next transaction (reads go round the reader connections).
      for _ in 0..<8 { #expect(try await Self.value(store) == 0) }
      try await store.write { try await $0.raw("UPDATE counters SET value = 0").run() }
    }
    try await opened.dispose()
  }
}

extension IntentStore {
  /// `changingSchema` that hands back what `body` returned.
  func changingSchemaReturning<T: Sendable>(_ body: @Sendable @escaping () async throws -> T) async throws -> T {
    let box = ResultBox<T>()
    try await changingSchema { box.set(try await body()) }
    return try box.get()
  }
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: T?
  func set(_ value: T) { lock.withLock { self.value = value } }
  func get() throws -> T {
    guard let value = lock.withLock({ self.value }) else { throw CancellationError() }
    return value
  }
}
