package import SQLKit

/// A domain's store: where every piece of state lives. Handlers are stateless and reach state only
/// through the database a store hands them.
package protocol IntentStore: Sendable {
  /// Runs `body` in one write transaction: committed when it returns, rolled back when it throws.
  /// The commit is durable before this returns.
  func write<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T
  /// `write(_:)`, run beside other writes as `concurrency` allows; a `WriteConflict` thrown by
  /// `body` rolls it back and runs it again.
  func write<T: Sendable>(
    _ concurrency: WriteConcurrency, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T
  /// Runs `body` against a consistent view of the store, with no writes. `body` may run more than
  /// once (SQLite runs it again when the view its cached reads were answered from moved before its
  /// first statement): it reads, and does nothing else that must happen once.
  func read<T: Sendable>(_ body: @Sendable (any SQLDatabase) async throws -> T) async throws -> T
  /// Runs `body` (migrations, seeding) while no other process sharing this store does the same.
  func changingSchema(_ body: @Sendable () async throws -> Void) async throws
  /// Called once migrations have run (`SchemaMigrator`), with the schema as they left it.
  func schemaDidChange() async throws
  /// Closes the store; later calls fail.
  func close() async throws
}

extension IntentStore {
  /// A store whose writes all run alone runs a concurrent one alone too: nothing it read moves
  /// under it, and a `WriteConflict` (a check that disagrees with what was read) runs it again.
  package func write<T: Sendable>(
    _ concurrency: WriteConcurrency, _ body: @Sendable (any SQLDatabase) async throws -> T
  ) async throws -> T {
    try await WriteConflict.rerunning { try await write(body) }
  }

  /// A store only one process opens needs no lock.
  package func changingSchema(_ body: @Sendable () async throws -> Void) async throws {
    try await body()
  }

  /// A store that keeps nothing about its schema has nothing to do.
  package func schemaDidChange() async throws {}
}
