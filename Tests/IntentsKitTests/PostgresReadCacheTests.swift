import Foundation
@testable import IntentsKit
@testable import IntentsRuntime
import IntentsKitTesting
import Logging
import PostgresNIO
import SQLKit
import Testing

/// PostgreSQL's read cache: which tables a statement touches, when a kept value holds, how readers
/// share a barrier — without a server; and with one (INTENTMESH_TEST_POSTGRES_URL), that a read on
/// one replica sees every write another replica committed before it began, that writes which run
/// alone never answer from the cache, and that a lost listener stops the cache until it hears again.
@Suite("PostgreSQL read cache")
struct PostgresReadCacheTests {
  static let tables: Set<String> = ["names", "pets", "payments_accounts"]

  @Test("a statement's tables are the schema's tables it names, folded as PostgreSQL folds them")
  func statementTables() {
    let select = StatementScope(
      of: "SELECT n.name FROM Names n JOIN pets ON pets.user_id = n.user_id WHERE n.nickname = $1",
      knownTables: Self.tables)
    #expect(select.tables == ["names", "pets"])
    #expect(!select.writes)
    let update = StatementScope(
      of:
        "WITH locked AS MATERIALIZED (SELECT account_id FROM payments_accounts FOR NO KEY UPDATE) UPDATE payments_accounts SET x = 1",
      knownTables: Self.tables)
    #expect(update.tables == ["payments_accounts"])
    #expect(update.writes)
    // A word that only contains a verb or a table's name is neither.
    let other = StatementScope(of: "SELECT updated_at, names_count FROM petsitters", knownTables: Self.tables)
    #expect(other.namesNoTable && !other.writes)
    #expect(StatementScope(of: "SELECT pg_advisory_xact_lock($1)", knownTables: Self.tables).namesNoTable)
    #expect(StatementScope(of: "insert into pets values ($1)", knownTables: Self.tables).writes)
  }

  @Test("a kept value holds until one of its tables changes after the transaction that read it began")
  func validity() {
    let cache = PostgresReadCache()
    let key = ReadCacheKey("names", userID: "diana")
    #expect(cache.begin() == nil)  // tables unknown, nothing heard
    cache.schemaChanged(tables: Self.tables)
    #expect(cache.begin() == nil)  // nothing heard yet
    cache.startListening()
    let first = try! #require(cache.begin())
    cache.keep(["Celestra"], for: key, readFrom: ["names"], generation: first.generation)
    #expect(cache.kept(key)?.value as? [String] == ["Celestra"])
    cache.changed(["pets"])
    #expect(cache.kept(key)?.tables == ["names"])
    cache.changed(["names"])
    #expect(cache.kept(key) == nil)
    // A value read by a transaction that began before a change it may not have seen is not reused.
    let second = try! #require(cache.begin())
    cache.changed(["names"])
    cache.keep(["Celestra", "Zephyr"], for: key, readFrom: ["names"], generation: second.generation)
    #expect(cache.kept(key) == nil)
    // The listener lost: nothing is kept or reused until it hears again, and nothing from before counts.
    let third = try! #require(cache.begin())
    cache.keep(["Celestra", "Zephyr"], for: key, readFrom: ["names"], generation: third.generation)
    #expect(cache.kept(key) != nil)
    cache.stopListening()
    #expect(cache.begin() == nil && cache.kept(key) == nil)
    cache.keep(["Celestra"], for: key, readFrom: ["names"], generation: third.generation)
    cache.startListening()
    #expect(cache.kept(key) == nil && cache.count == 0)
  }

  @Test("the cache holds a bounded number of values")
  func bounded() {
    let cache = PostgresReadCache()
    cache.schemaChanged(tables: Self.tables)
    cache.startListening()
    let generation = cache.begin()!.generation
    for user in 0..<(PostgresReadCache.capacity + 10) {
      cache.keep(user, for: ReadCacheKey("names", userID: "\(user)"), readFrom: ["names"], generation: generation)
    }
    #expect(cache.count <= PostgresReadCache.capacity)
  }

  @Test("readers arriving together share a barrier; one arriving after it was sent waits for the next")
  func barrierSharing() {
    var state = ChangeBarrierState<String>()
    #expect(state.arrive("a") == (1, 1))
    #expect(state.arrive("b") == (2, nil))
    #expect(state.arrive("c") == (2, nil))
    // Barrier 1 lets a go and sends 2 for b and c.
    let first = state.heard(1)
    #expect(first.release == ["a"] && first.send == 2)
    #expect(state.arrive("d") == (3, nil))
    let second = state.heard(2)
    #expect(second.release == ["b", "c"] && second.send == 3)
    // A number heard twice, or one never sent, lets nobody go.
    #expect(state.heard(2).release.isEmpty && state.heard(9).release.isEmpty)
    #expect(state.abandon() == ["d"])
    #expect(!state.onItsWay)
    #expect(state.arrive("e") == (4, 4))
  }

  // MARK: With a server

  /// The names and pets of `ReadCacheTests`.
  static let migrations = ReadCacheTests.migrations

  static func names(in database: any SQLDatabase, loads: ReadCacheTests.Loads) async throws -> [String] {
    try await database.cachedRead("test.names", userID: "diana") {
      loads.add()
      return try await database.raw("SELECT name FROM names WHERE user_id = 'diana' ORDER BY name").all()
        .map { try $0.decode(column: "name", as: String.self) }
    }
  }

  /// Two replicas of one schema, migrated, their caches live; both closed and the schema dropped after `body`.
  static func withReplicas(
    _ name: String, _ body: (PostgresStore, PostgresStore, StoreLocation.PostgresLocation) async throws -> Void
  ) async throws {
    guard let url = TestStore.postgresURL, case .postgres(var location) = try StoreLocation(parsing: url) else {
      return
    }
    location.schema = TestStore.freshSchema(name)
    let first = try await PostgresStore.open(location, defaultSchema: "unused", logger: TestStore.quietLogger)
    let second = try await PostgresStore.open(location, defaultSchema: "unused", logger: TestStore.quietLogger)
    do {
      try await SchemaMigrator.migrate(first, migrations)
      try await SchemaMigrator.migrate(second, migrations)
      try await waitUntil("both caches are live") { first.readCacheIsLive && second.readCacheIsLive }
      try await body(first, second, location)
    } catch {
      try? await first.dropSchema()
      try? await first.close()
      try? await second.close()
      throw error
    }
    try await first.dropSchema()
    try await first.close()
    try await second.close()
  }

  @Test("a read on one replica sees every write another replica committed before it began, every time")
  func readYourWritesAcrossReplicas() async throws {
    try await Self.withReplicas("cache-across") { first, second, _ in
      let loads = ReadCacheTests.Loads()
      var expected = ["Celestra"]
      for round in 0..<40 {
        #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == expected)
        #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == expected)
        let name = "Pony\(1000 + round)"
        try await second.write {
          try await $0.raw("INSERT INTO names (user_id, name) VALUES ('diana', \(bind: name))").run()
        }
        expected = (expected + [name]).sorted()
      }
      #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == expected)
      // Each value was loaded once after each write, and reused by the read after it (loaded again
      // instead when a barrier goes unheard on a loaded machine).
      #expect(loads.value < 81)
      #expect(loads.value >= 41)
    }
  }

  @Test("a concurrent write reuses kept values; a write that runs alone never does, and keeps what it reads")
  func writesAndTheCache() async throws {
    try await Self.withReplicas("cache-writes") { first, _, _ in
      let loads = ReadCacheTests.Loads()
      _ = try await first.read { try await Self.names(in: $0, loads: loads) }
      #expect(loads.value == 1)
      _ = try await first.write(.concurrent) { try await Self.names(in: $0, loads: loads) }
      #expect(loads.value == 1)
      _ = try await first.write { try await Self.names(in: $0, loads: loads) }
      #expect(loads.value == 2)
      // A transaction that has written reads its own rows, and keeps nothing.
      let seen = try await first.write(.concurrent) { database in
        try await database.raw("INSERT INTO names (user_id, name) VALUES ('diana', 'Zephyr')").run()
        return try await Self.names(in: database, loads: loads)
      }
      #expect(seen == ["Celestra", "Zephyr"] && loads.value == 3)
      #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == ["Celestra", "Zephyr"])
      #expect(loads.value == 4)
    }
  }

  @Test("a listener that stops hearing stops the cache; once it hears again, nothing from before is reused")
  func lostListener() async throws {
    try await Self.withReplicas("cache-lost") { first, second, location in
      let loads = ReadCacheTests.Loads()
      _ = try await first.read { try await Self.names(in: $0, loads: loads) }
      // The server drops the connections listening on this schema's channel (both replicas').
      let channel = ChangeNotifications.channel(schema: location.schema!)
      let admin = try await PostgresConnection.connect(
        configuration: .init(
          host: location.host, port: location.port, username: location.username, password: location.password,
          database: location.database, tls: .disable),
        id: 99, logger: TestStore.quietLogger)
      let terminated = try await admin.query(
        "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = \(PostgresChangeListener.applicationName(channel))",
        logger: TestStore.quietLogger
      ).collect().count
      try await admin.close()
      #expect(terminated == 2)
      try await second.write { try await $0.raw("INSERT INTO names (user_id, name) VALUES ('diana', 'Nimbus')").run() }
      #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == ["Celestra", "Nimbus"])
      try await waitUntil("the listener hears again") { first.readCacheIsLive }
      #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == ["Celestra", "Nimbus"])
      let before = loads.value
      #expect(try await first.read { try await Self.names(in: $0, loads: loads) } == ["Celestra", "Nimbus"])
      #expect(loads.value == before)
    }
  }

  @Test("every migrated table notifies, once, however often replicas start")
  func triggers() async throws {
    try await Self.withReplicas("cache-triggers") { first, _, _ in
      try await first.schemaDidChange()
      let count = try await first.read { database in
        try await database.raw(
          "SELECT count(*) AS n FROM pg_trigger WHERE tgname = 'intentmesh_notify_change' AND tgrelid::regclass::text IN ('names', 'pets', 'intentmesh_schema_migrations')"
        ).first()?.decode(column: "n", as: Int.self)
      }
      #expect(count == 3)
    }
  }
}
