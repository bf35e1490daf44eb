import Foundation
import GRPCCore
@testable import IntentMeshCore
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import SQLKit
import Synchronization
import Testing

/// How writes run beside each other (`WriteConcurrency`), on the store `TestStore` opens: SQLite,
/// or PostgreSQL when INTENTMESH_TEST_POSTGRES_URL names a server (CI runs both).
@Suite("Write concurrency: concurrent writes beside each other, serialized ones alone, conflicts run again")
struct WriteConcurrencyTests {
  static func withTable<T: Sendable>(_ name: String, _ body: (any IntentStore) async throws -> T) async throws -> T {
    try await TestStore.with(named: name) { store in
      try await store.write { try await $0.raw("CREATE TABLE t (k TEXT PRIMARY KEY, n BIGINT NOT NULL)").run() }
      return try await body(store)
    }
  }

  static func rows(_ store: any IntentStore) async throws -> [String] {
    try await store.read { database in
      try await database.raw("SELECT k FROM t ORDER BY k").all().map { try $0.decode(column: "k", as: String.self) }
    }
  }

  @Test("a write that throws WriteConflict is rolled back and run again: what its first run wrote is gone")
  func conflictRunsAgain() async throws {
    try await Self.withTable("conflict-reruns") { store in
      let runs = Atomic(0)
      let answer = try await store.write(.concurrent) { database in
        let run = runs.add(1, ordering: .relaxed).newValue
        try await database.raw("INSERT INTO t (k, n) VALUES (\(bind: "run-\(run)"), \(bind: run))").run()
        if run == 1 { throw WriteConflict("the first run saw a balance that moved") }
        return run
      }
      #expect(answer == 2)
      let runsSeen = runs.load(ordering: .relaxed)
      #expect(runsSeen == 2)
      #expect(try await Self.rows(store) == ["run-2"])
    }
  }

  @Test(
    "a write that conflicts every time is given up after WriteConflict.attempts runs: ABORTED WRITE_CONFLICT, nothing stored"
  )
  func conflictGivenUp() async throws {
    try await Self.withTable("conflict-given-up") { store in
      let runs = Atomic(0)
      await #expect(throws: IntentMeshError.self) {
        try await store.write(.concurrent) { database in
          let run = runs.add(1, ordering: .relaxed).newValue
          try await database.raw("INSERT INTO t (k, n) VALUES (\(bind: "run-\(run)"), \(bind: run))").run()
          throw WriteConflict("never settles")
        }
      }
      let runsSeen = runs.load(ordering: .relaxed)
      #expect(runsSeen == WriteConflict.attempts)
      #expect(try await Self.rows(store) == [])
      do {
        try await store.write(.concurrent) { _ in throw WriteConflict("never settles") }
        Issue.record("a write that always conflicts was not given up")
      } catch let error as IntentMeshError {
        #expect(error.rpcErrorCode == .aborted)
        #expect(error.reason == "WRITE_CONFLICT")
        #expect(error.rpcErrorMessage.contains("never settles"))
      }
    }
  }

  @Test("a serialized write's WriteConflict runs it again too; other errors are not run again")
  func serializedConflictAndOtherErrors() async throws {
    try await Self.withTable("serialized-conflict") { store in
      let runs = Atomic(0)
      try await store.write(.serialized) { database in
        let run = runs.add(1, ordering: .relaxed).newValue
        try await database.raw("INSERT INTO t (k, n) VALUES ('once', \(bind: run))").run()
        if run == 1 { throw WriteConflict("moved") }
      }
      let runsSeen = runs.load(ordering: .relaxed)
      #expect(runsSeen == 2)
      struct Refused: Error {}
      let refused = Atomic(0)
      await #expect(throws: Refused.self) {
        try await store.write(.concurrent) { _ in
          refused.add(1, ordering: .relaxed)
          throw Refused()
        }
      }
      let refusedSeen = refused.load(ordering: .relaxed)
      #expect(refusedSeen == 1)
      #expect(try await Self.rows(store) == ["once"])
    }
  }

  @Test(
    "PostgreSQL: two concurrent writes hold their transactions open at the same time; a serialized write waits for the lock until both have committed",
    .enabled(if: TestStore.postgresURL != nil, "needs INTENTMESH_TEST_POSTGRES_URL")
  )
  func concurrentBesideSerializedAlone() async throws {
    try await Self.withTable("concurrent-beside") { store in
      let postgres = try #require(store as? PostgresStore)
      let seen = Seen()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for name in ["a", "b"] {
          group.addTask {
            try await store.write(.concurrent) { database in
              try await database.raw("INSERT INTO t (k, n) VALUES (\(bind: name), 1)").run()
              seen.inside.add(1, ordering: .relaxed)
              // Each waits, its transaction open, until the other is inside too (one at a time,
              // neither would ever see that), then until the serialized write waits for the lock.
              let deadline = ContinuousClock.now + .seconds(20)
              while seen.inside.load(ordering: .relaxed) < 2, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
              }
              if seen.inside.load(ordering: .relaxed) == 2 { seen.bothInside.store(true, ordering: .relaxed) }
              while try await !Self.writeLockAwaited(postgres), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
              }
            }
            seen.concurrentEnded.add(1, ordering: .relaxed)
          }
        }
        group.addTask {
          // Asked for while both concurrent writes are open.
          while seen.inside.load(ordering: .relaxed) < 2 { try await Task.sleep(for: .milliseconds(5)) }
          try await store.write(.serialized) { database in
            // Both concurrent writes committed before this one got the lock: it sees their rows.
            seen.serializedSawRows.store(
              try await database.raw("SELECT COUNT(*) AS c FROM t").first()?.decode(column: "c", as: Int.self) ?? 0,
              ordering: .relaxed)
          }
        }
        try await group.waitForAll()
      }
      let bothInside = seen.bothInside.load(ordering: .relaxed)
      let serializedSawRows = seen.serializedSawRows.load(ordering: .relaxed)
      let concurrentEnded = seen.concurrentEnded.load(ordering: .relaxed)
      #expect(bothInside)
      #expect(serializedSawRows == 2)
      #expect(concurrentEnded == 2)
    }
  }

  /// Whether a transaction waits for `store`'s write lock now (PostgreSQL's `pg_locks`: an int8
  /// advisory key is its high and low 32 bits, `objsubid` 1).
  static func writeLockAwaited(_ store: PostgresStore) async throws -> Bool {
    let key = UInt64(bitPattern: PostgresStore.lockKey(store.schema + ".writer"))
    let waiting = try await store.read { database in
      try await database.raw(
        """
        SELECT COUNT(*) AS c FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1
          AND classid::bigint = \(bind: Int64(key >> 32)) AND objid::bigint = \(bind: Int64(key & 0xffff_ffff))
        """
      ).first()?.decode(column: "c", as: Int.self) ?? 0
    }
    return waiting > 0
  }

  /// What the writes of the tests here saw, shared by their tasks.
  final class Seen: Sendable {
    let inside = Atomic(0)
    let bothInside = Atomic(false)
    let concurrentEnded = Atomic(0)
    let serializedSawRows = Atomic(-1)
    let runs = Atomic(0)
  }

  @Test(
    "PostgreSQL: six concurrent writes record the same handled intent at once: one records it, the other five run again and find it",
    .enabled(if: TestStore.postgresURL != nil, "needs INTENTMESH_TEST_POSTGRES_URL")
  )
  func handledIntentTakenRunsAgain() async throws {
    try await TestStore.with(named: "handled-taken") { store in
      _ = try await SchemaMigrator.migrate(store, SchemaMigrator.runtime)
      let seen = Seen()
      let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
        for writer in 0..<6 {
          group.addTask {
            try await store.write(.concurrent) { database in
              // Every first run reads before any has recorded: all six inside together (one at a
              // time, the first would commit before the next read).
              if seen.runs.add(1, ordering: .relaxed).newValue <= 6 {
                seen.inside.add(1, ordering: .relaxed)
                let deadline = ContinuousClock.now + .seconds(20)
                while seen.inside.load(ordering: .relaxed) < 6, ContinuousClock.now < deadline {
                  try await Task.sleep(for: .milliseconds(5))
                }
              }
              if let earlier = try await HandledIntentLedger.entry(userID: "diana", identifier: "once", in: database) {
                return "saw \(earlier.intentClass)"
              }
              try await HandledIntentLedger.record(
                userID: "diana", identifier: "once",
                entry: .init(intentClass: "writer-\(writer)", payload: Data(), response: Data()), at: 0, in: database)
              // Held open a moment: the others insert the same key while it is uncommitted.
              try await Task.sleep(for: .milliseconds(100))
              return "recorded"
            }
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      #expect(outcomes.filter { $0 == "recorded" }.count == 1, "\(outcomes)")
      #expect(outcomes.filter { $0.hasPrefix("saw writer-") }.count == 5, "\(outcomes)")
      let runs = seen.runs.load(ordering: .relaxed)
      #expect(runs == 11)
      // Another table's unique key is the write's own error: not run again.
      try await store.write { try await $0.raw("CREATE TABLE t (k TEXT PRIMARY KEY)").run() }
      let tries = Atomic(0)
      await #expect(throws: PostgresStoreError.self) {
        try await store.write(.concurrent) { database in
          tries.add(1, ordering: .relaxed)
          try await database.raw("INSERT INTO t (k) VALUES ('a'), ('a')").run()
        }
      }
      let triesSeen = tries.load(ordering: .relaxed)
      #expect(triesSeen == 1)
    }
  }
}
