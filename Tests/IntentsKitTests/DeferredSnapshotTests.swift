import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import SQLKit
import Synchronization
import Testing

/// A reader's read transaction takes SQLite's snapshot only when a statement must run
/// (`DeferredSnapshot`): a read answered from the cache alone takes none while the WAL index says
/// nothing was committed, and a read whose snapshot, once taken, is of a later state than its
/// cached answers runs again.
@Suite("Deferred read snapshots")
struct DeferredSnapshotTests {
  static let before = WALIndex.Header(words: (1, 2, 3, 4, 5, 6))
  static let after = WALIndex.Header(words: (1, 3, 3, 4, 5, 6))
  static let stamp = ReadCache.Stamp(dataVersion: 7, changes: 0)
  static let later = ReadCache.Stamp(dataVersion: 8, changes: 0)

  /// A machine that knows `stamp` for `before`: one deferred transaction took its snapshot.
  static func knowing() -> DeferredSnapshot {
    var snapshot = DeferredSnapshot()
    let beginsNow = snapshot.start(deferring: true)
    let withoutSnapshot = snapshot.stampWithoutSnapshot { before }
    let mustCheck = snapshot.began(headerBefore: before)
    let same = snapshot.read(stamp)
    #expect(!beginsNow && withoutSnapshot == nil && !mustCheck && same)
    snapshot.end()
    return snapshot
  }

  @Test("a snapshot taken at once (not deferred) begins now and teaches nothing about the WAL index")
  func eager() {
    var snapshot = DeferredSnapshot()
    let beginsNow = snapshot.start(deferring: false)
    #expect(beginsNow && snapshot.isBegun && !snapshot.awaitsSnapshot)
    let same = snapshot.read(Self.stamp)
    #expect(same)
    snapshot.end()
    #expect(snapshot.phase == .idle)
    _ = snapshot.start(deferring: true)
    #expect(snapshot.awaitsSnapshot)
    let withoutSnapshot = snapshot.stampWithoutSnapshot { Self.before }
    #expect(withoutSnapshot == nil)
  }

  @Test("while the header is the one read before the last snapshot, its stamp answers without one")
  func reused() {
    var snapshot = Self.knowing()
    _ = snapshot.start(deferring: true)
    let unchanged = snapshot.stampWithoutSnapshot { Self.before }
    #expect(unchanged == Self.stamp)
    #expect(snapshot.phase == .deferred(reused: Self.stamp))
    // The transaction's later cached reads keep that stamp, whatever the header says by then.
    let later = snapshot.stampWithoutSnapshot { Self.after }
    #expect(later == Self.stamp)
    snapshot.end()
    _ = snapshot.start(deferring: true)
    let changed = snapshot.stampWithoutSnapshot { Self.after }
    #expect(changed == nil)
    // A header read while a writer changed it (nil): a snapshot is taken.
    let torn = snapshot.stampWithoutSnapshot { nil }
    #expect(torn == nil && snapshot.awaitsSnapshot)
  }

  @Test("a snapshot taken after a reused stamp must have that stamp, or the transaction has moved")
  func moved() {
    var snapshot = Self.knowing()
    _ = snapshot.start(deferring: true)
    _ = snapshot.stampWithoutSnapshot { Self.before }
    let mustCheck = snapshot.began(headerBefore: Self.after)
    let same = snapshot.read(Self.later)
    #expect(mustCheck && !same)
    #expect(snapshot.isMoved && !snapshot.isBegun)
    snapshot.end()

    var unchanged = Self.knowing()
    _ = unchanged.start(deferring: true)
    _ = unchanged.stampWithoutSnapshot { Self.before }
    let mustCheckUnchanged = unchanged.began(headerBefore: Self.before)
    let sameUnchanged = unchanged.read(Self.stamp)
    #expect(mustCheckUnchanged && sameUnchanged)
    #expect(unchanged.isBegun && !unchanged.isMoved)
  }

  @Test("the stamp a snapshot had is learnt for the header read before it, not for another")
  func learnt() {
    var snapshot = Self.knowing()
    _ = snapshot.start(deferring: true)
    let changed = snapshot.stampWithoutSnapshot { Self.after }
    let mustCheck = snapshot.began(headerBefore: Self.after)
    let same = snapshot.read(Self.later)
    #expect(changed == nil && !mustCheck && same)
    snapshot.end()
    _ = snapshot.start(deferring: true)
    let earlier = snapshot.stampWithoutSnapshot { Self.before }
    #expect(earlier == nil)
    snapshot.end()
    _ = snapshot.start(deferring: true)
    let learnt = snapshot.stampWithoutSnapshot { Self.after }
    #expect(learnt == Self.later)
  }

  // MARK: - On a store

  /// Runs `body` with a SQLite store with one reader connection (so every read meets the same
  /// cache and the same snapshot), migrated as `ReadCacheTests` migrates, and its file's path.
  static func withStore(_ name: String, _ body: (SQLiteStore, String) async throws -> Void) async throws {
    let path = TemporaryDatabase.path(named: name)
    let store = try await SQLiteStore.open(path: path, logger: TestStore.quietLogger, readers: 1)
    do {
      try await SchemaMigrator.migrate(store, ReadCacheTests.migrations)
      try await body(store, path)
    } catch {
      try? await store.close()
      TemporaryDatabase.remove(path)
      throw error
    }
    try await store.close()
    TemporaryDatabase.remove(path)
  }

  /// Reads Diana's names until the reader answers them from the cache without a snapshot.
  static func warm(_ store: SQLiteStore) async throws {
    for _ in 0..<3 {
      _ = try await store.read { try await ReadCacheTests.names(of: "diana", in: $0, loads: .init()) }
    }
  }

  /// A name added by a plain SQLite connection on the file: another process, as far as the store
  /// can tell.
  static func addByAnotherConnection(_ name: String, at path: String) throws {
    let shell = try SQLiteHandle(path: path)
    defer { shell.close() }
    try shell.run("INSERT INTO names (user_id, name) VALUES ('diana', '\(name)')", []) { _ in }
  }

  /// How many rows `names` has, by a statement (never cached).
  static func count(in database: any SQLDatabase) async throws -> Int {
    try await database.raw("SELECT count(*) AS n FROM names").first()!.decode(column: "n", as: Int.self)
  }

  /// Counts the runs of a transaction's body.
  final class Runs: Sendable {
    private let count = Atomic(0)
    var value: Int { count.load(ordering: .relaxed) }
    func next() -> Int { count.add(1, ordering: .relaxed).newValue }
  }

  /// A read of `store` (at `path`, warmed) whose body reads Diana's names from the cache, has
  /// another connection commit a name between that answer and `rest` on its first run only, then
  /// runs `rest`; the names and what `rest` gave as the read answered them, and the body's runs.
  static func readWithCommitBetween<Rest: Sendable>(
    _ store: SQLiteStore, at path: String, then rest: @escaping @Sendable (any SQLDatabase) async throws -> Rest
  ) async throws -> (names: [String], rest: Rest, runs: Int) {
    try await warm(store)
    let runs = Runs()
    let (names, answer) = try await store.read { database in
      let run = runs.next()
      let names = try await ReadCacheTests.names(of: "diana", in: database, loads: .init())
      if run == 1 { try addByAnotherConnection("Moonbeam", at: path) }
      return (names, try await rest(database))
    }
    return (names, answer, runs.value)
  }

  @Test("a read answered from the cache alone takes no snapshot; a write, or a statement, makes it take one")
  func noSnapshotForCachedReads() async throws {
    try await Self.withStore("deferred-cached") { store, path in
      try await Self.warm(store)
      let taken = await store.deferredSnapshotsTaken()
      let loads = ReadCacheTests.Loads()
      for _ in 0..<10 {
        let names = try await store.read { try await ReadCacheTests.names(of: "diana", in: $0, loads: loads) }
        #expect(names == ["Celestra"])
      }
      #expect(loads.value == 0)
      #expect(await store.deferredSnapshotsTaken() == taken)

      try await store.write { try await ReadCacheTests.insert("Zephyr", in: $0) }
      let afterWrite = try await store.read { try await ReadCacheTests.names(of: "diana", in: $0, loads: loads) }
      #expect(afterWrite == ["Celestra", "Zephyr"])
      let takenAfterWrite = await store.deferredSnapshotsTaken()
      #expect(loads.value == 1 && takenAfterWrite == taken + 1)

      try Self.addByAnotherConnection("Moonbeam", at: path)
      let afterOther = try await store.read { try await ReadCacheTests.names(of: "diana", in: $0, loads: loads) }
      #expect(afterOther == ["Celestra", "Moonbeam", "Zephyr"])
      let takenAfterOther = await store.deferredSnapshotsTaken()
      #expect(loads.value == 2 && takenAfterOther == taken + 2)

      #expect(try await store.read { try await Self.count(in: $0) } == 3)
      #expect(await store.deferredSnapshotsTaken() == taken + 3)
    }
  }

  @Test("a statement after a cached answer, nothing committed between, runs in the same transaction")
  func statementAfterCachedRead() async throws {
    try await Self.withStore("deferred-same") { store, _ in
      try await Self.warm(store)
      let taken = await store.deferredSnapshotsTaken()
      let runs = Runs()
      let (names, count) = try await store.read { database in
        _ = runs.next()
        let names = try await ReadCacheTests.names(of: "diana", in: database, loads: .init())
        return (names, try await Self.count(in: database))
      }
      #expect(names == ["Celestra"] && count == 1 && runs.value == 1)
      // One snapshot, taken for the statement after the cached answer.
      #expect(await store.deferredSnapshotsTaken() == taken + 1)
    }
  }

  @Test("a commit between a cached answer and a statement runs the read again, all of it at the later state")
  func commitBetween() async throws {
    try await Self.withStore("deferred-moved") { store, path in
      let read = try await Self.readWithCommitBetween(store, at: path) { try await Self.count(in: $0) }
      #expect(read.runs == 2)
      #expect(read.names == ["Celestra", "Moonbeam"] && read.rest == 2)
    }
  }

  @Test("a read whose body swallows the error of a moved snapshot runs again all the same")
  func swallowedError() async throws {
    try await Self.withStore("deferred-swallowed") { store, path in
      let read = try await Self.readWithCommitBetween(store, at: path) { database in
        let count = try? await Self.count(in: database)
        // Every statement after the moved snapshot fails too, a cached read's included.
        let again = try? await ReadCacheTests.names(of: "diana", in: database, loads: .init())
        return Pair(count: count, names: again)
      }
      #expect(read.runs == 2)
      #expect(read.names == ["Celestra", "Moonbeam"] && read.rest == Pair(count: 2, names: ["Celestra", "Moonbeam"]))
    }
  }

  struct Pair: Sendable, Equatable {
    let count: Int?
    let names: [String]?
  }

  @Test("a body's own error still ends the read, and the next one answers")
  func ownError() async throws {
    struct Refused: Error {}
    try await Self.withStore("deferred-error") { store, _ in
      try await Self.warm(store)
      let taken = await store.deferredSnapshotsTaken()
      await #expect(throws: Refused.self) {
        try await store.read { database -> Int in
          _ = try await ReadCacheTests.names(of: "diana", in: database, loads: .init())
          throw Refused()
        }
      }
      // The failed read took no snapshot (its one read was cached); the next one took one.
      #expect(await store.deferredSnapshotsTaken() == taken)
      #expect(try await store.read { try await Self.count(in: $0) } == 1)
      #expect(await store.deferredSnapshotsTaken() == taken + 1)
    }
  }

  @Test("a cached read whose load swallows the error of a moved snapshot keeps nothing; the read runs again")
  func swallowedInLoad() async throws {
    try await Self.withStore("deferred-swallowed-load") { store, path in
      let loads = ReadCacheTests.Loads()
      @Sendable func counted(_ database: any SQLDatabase) async throws -> Int? {
        try await database.cachedRead("test.count", userID: "diana") {
          loads.add()
          return try? await Self.count(in: database)
        }
      }
      let read = try await Self.readWithCommitBetween(store, at: path) { try await counted($0) }
      #expect(read.runs == 2 && read.names == ["Celestra", "Moonbeam"] && read.rest == 2)
      // What the second run loaded was kept, not the first run's nil.
      let again = try await store.read { try await counted($0) }
      #expect(again == 2 && loads.value == 2)
    }
  }
}
