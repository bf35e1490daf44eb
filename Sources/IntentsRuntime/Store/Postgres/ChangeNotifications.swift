internal import Foundation
internal import SQLKit

/// How the replicas sharing a PostgreSQL schema hear of each other's writes, for their read caches
/// (`PostgresReadCache`): every table of the schema has a statement-level trigger that, when a
/// statement inserts, updates, deletes or truncates, notifies the schema's channel with the
/// table's name. PostgreSQL delivers a notification when its transaction commits (none when it
/// rolls back), once per table and transaction, to every session listening
/// (`PostgresChangeListener`).
enum ChangeNotifications {
  /// The name of the trigger, and of the function it runs, in the schema.
  static let trigger = "intentmesh_notify_change"

  /// The channel the schema's changes are told on: `intentmesh_changes_` and a hash of the schema
  /// (a channel's name is at most 63 bytes; a schema's may be too).
  static func channel(schema: String) -> String {
    "intentmesh_changes_" + String(UInt64(bitPattern: PostgresStore.lockKey(schema)), radix: 16)
  }

  /// Installs the function, and the trigger on every table of `schema` that lacks it, and returns
  /// the schema's tables (lower case, as PostgreSQL keeps unquoted names). Run while no other
  /// replica changes the schema (`PostgresStore.exclusively`); a table already notifying is left
  /// alone, so a replica that starts beside others serving writes takes no lock they wait for.
  static func install(schema: String, in database: any SQLDatabase) async throws -> Set<String> {
    let channel = channel(schema: schema)
    let function = "\(schema).\(trigger)"
    let existing = try await database.raw(
      """
      SELECT 1 AS found FROM pg_proc
      WHERE proname = \(bind: trigger) AND pronamespace = \(bind: schema)::regnamespace
        AND prosrc LIKE \(bind: "%'\(channel)'%")
      """
    ).first()
    if existing == nil {
      try await database.raw(
        SQLQueryString(
          """
          CREATE OR REPLACE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            PERFORM pg_notify('\(channel)', TG_TABLE_NAME);
            RETURN NULL;
          END $$
          """)
      ).run()
    }
    let rows = try await database.raw(
      """
      SELECT c.relname AS name,
             EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = \(bind: trigger)) AS notifies
      FROM pg_class c
      WHERE c.relnamespace = \(bind: schema)::regnamespace AND c.relkind IN ('r', 'p')
      """
    ).all()
    var tables: Set<String> = []
    for row in rows {
      let name = try row.decode(column: "name", as: String.self)
      tables.insert(name)
      guard try !row.decode(column: "notifies", as: Bool.self) else { continue }
      let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      try await database.raw(
        SQLQueryString(
          """
          CREATE TRIGGER \(trigger) AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(schema).\(quoted)
          FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
          """)
      ).run()
    }
    return tables
  }
}
