internal import IntentMeshProtos
internal import SwiftProtobuf
internal import Foundation
internal import SQLKit

/// One step of a store's schema, applied once and recorded by id.
package struct SchemaMigration: Sendable {
  package let id: String
  package let statements: [String]

  package init(id: String, statements: [String]) {
    self.id = id
    self.statements = statements
  }
}

/// Applies the migrations a store has not seen yet, each in its own transaction, in order; then
/// lets the store act on the schema they leave (`IntentStore.schemaDidChange`).
package enum SchemaMigrator {
  /// Brings `store` up to date; returns the ids applied now.
  @discardableResult
  package static func migrate(_ store: any IntentStore, _ migrations: [SchemaMigration]) async throws -> [String] {
    try await store.write { database in
      try await database.raw(
        "CREATE TABLE IF NOT EXISTS intentmesh_schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)"
      ).run()
    }
    var applied: [String] = []
    for migration in migrations {
      let done = try await store.write { database in
        let rows = try await database.raw(
          "SELECT id FROM intentmesh_schema_migrations WHERE id = \(bind: migration.id)"
        ).all()
        if !rows.isEmpty { return false }
        for statement in migration.statements {
          try await database.raw(SQLQueryString(statement)).run()
        }
        try await database.raw(
          "INSERT INTO intentmesh_schema_migrations (id, applied_at) VALUES (\(bind: migration.id), \(bind: Date().epochMilliseconds))"
        ).run()
        return true
      }
      if done { applied.append(migration.id) }
    }
    try await store.schemaDidChange()
    return applied
  }

  /// The tables the runtime itself keeps in every domain's store.
  package static let runtime: [SchemaMigration] = [
    SchemaMigration(
      id: "intentmesh-1-handled-intents",
      statements: [
        """
        CREATE TABLE intentmesh_handled_intents (
          user_id TEXT NOT NULL,
          intent_identifier TEXT NOT NULL,
          intent_class TEXT NOT NULL,
          payload TEXT NOT NULL,
          response TEXT NOT NULL,
          handled_at BIGINT NOT NULL,
          PRIMARY KEY (user_id, intent_identifier)
        )
        """
      ]),
    SchemaMigration(
      id: "intentmesh-2-user-vocabulary",
      statements: [
        """
        CREATE TABLE intentmesh_user_vocabulary (
          user_id TEXT NOT NULL,
          vocabulary_type INTEGER NOT NULL,
          position INTEGER NOT NULL,
          phrase TEXT NOT NULL,
          vocabulary_identifier TEXT NOT NULL,
          PRIMARY KEY (user_id, vocabulary_type, position)
        )
        """
      ]),
    SchemaMigration(
      id: "intentmesh-3-secrets",
      statements: [
        """
        CREATE TABLE intentmesh_secrets (
          name TEXT PRIMARY KEY,
          value TEXT NOT NULL
        )
        """
      ]),
  ]
}
