internal import SQLKit

/// A version for each table of a SQLite store, moved by triggers on every row any connection
/// inserts, updates or deletes — this process's, another's on the same file, or the `sqlite3`
/// shell's — in the same transaction as the change; the store's own writer, while the schema allows
/// it, moves them itself instead, its triggers off, once per table as the transaction commits
/// (`SQLiteHandle.chooseVersionBumping`, `SQLiteHandle.commit`). A cached read is kept with the versions of the tables it
/// read (`ReadCache`), so a write drops only the values read from the tables it changed.
///
/// Installed after the schema's migrations (`SQLiteStore.schemaDidChange`) on every table they
/// made; a table made outside them has no version, and what reads it is kept only while nothing
/// at all is written (`ReadCache`).
enum TableVersioning {
  /// The table holding the versions: one row per versioned table.
  static let table = "intentmesh_table_versions"

  /// The name under which the schema's own version (`PRAGMA schema_version`, moved by every change
  /// of the schema, which no trigger sees: a table altered, dropped or made anew) is read with the
  /// tables'; every kept value depends on it.
  static let schema = ""

  /// The versions of every versioned table as the transaction sees them, in the order of the
  /// table's key (which the scan follows: no sort).
  static let tableVersions = "SELECT name, version FROM \(table) ORDER BY name"

  /// The schema's version as the transaction sees it.
  static let schemaVersion = "PRAGMA schema_version"

  /// Creates the versions table and, for every table without them, its row and its triggers; in
  /// one transaction, so a table is versioned entirely or not at all. Tables that have their row
  /// and all three triggers are left alone: on a store migrated before, a start runs two statements.
  static func install(in database: any SQLDatabase) async throws {
    try await database.raw(
      "CREATE TABLE IF NOT EXISTS \(unsafeRaw: table) (name TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID"
    ).run()
    let tables = try await database.raw(
      """
      SELECT name FROM sqlite_schema AS versioned
      WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> \(bind: table)
        AND sql NOT LIKE 'CREATE VIRTUAL%'
        AND (NOT EXISTS (SELECT 1 FROM \(unsafeRaw: table) WHERE \(unsafeRaw: table).name = versioned.name)
          OR (SELECT count(*) FROM sqlite_schema AS made
              WHERE made.type = 'trigger' AND made.tbl_name = versioned.name
                AND made.name IN ('\(unsafeRaw: triggerPrefix)' || versioned.name || '_insert',
                  '\(unsafeRaw: triggerPrefix)' || versioned.name || '_update',
                  '\(unsafeRaw: triggerPrefix)' || versioned.name || '_delete')) < 3)
      """
    ).all().map { try $0.decode(column: "name", as: String.self) }
    for name in tables {
      for statement in statements(versioning: name) {
        try await database.raw(SQLQueryString(statement)).run()
      }
    }
  }

  /// How the names of the triggers that version a table begin; the table's name and the event follow.
  static let triggerPrefix = "intentmesh_version_"

  /// Moves one table's version (?1) by ?2, the statements that wrote it (`SQLiteHandle`'s writer,
  /// its triggers off, as a transaction commits; the triggers move it once per row).
  static let moveVersion = "UPDATE \(table) SET version = version + ?2 WHERE name = ?1"

  /// 1 when a connection may move the versions itself with its triggers off, else 0: the versions
  /// table exists, every trigger of the schema is a version trigger (and there is no TEMP one), and
  /// no foreign key changes rows itself (`ON DELETE`/`ON UPDATE` with an action) — those run only
  /// as triggers do.
  static let versionsMovableWithoutTriggers = """
    SELECT (SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '\(table)') = 1
      AND (SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'
             AND substr(name, 1, \(triggerPrefix.utf8.count)) <> '\(triggerPrefix)') = 0
      AND (SELECT count(*) FROM sqlite_temp_schema WHERE type = 'trigger') = 0
      AND (SELECT count(*) FROM sqlite_schema AS t JOIN pragma_foreign_key_list(t.name) AS f
           WHERE t.type = 'table'
             AND (f.on_update NOT IN ('NO ACTION', 'RESTRICT') OR f.on_delete NOT IN ('NO ACTION', 'RESTRICT'))) = 0
    """

  /// The row and the three triggers that version `name`.
  static func statements(versioning name: String) -> [String] {
    let literal = quoted(name, by: "'")
    let bump = "UPDATE \(table) SET version = version + 1 WHERE name = \(literal)"
    return ["INSERT OR IGNORE INTO \(table) (name, version) VALUES (\(literal), 0)"]
      + ["INSERT", "UPDATE", "DELETE"].map { event in
        let trigger = quoted("\(triggerPrefix)\(name)_\(event.lowercased())", by: "\"")
        return "CREATE TRIGGER IF NOT EXISTS \(trigger) AFTER \(event) ON \(quoted(name, by: "\"")) BEGIN \(bump); END"
      }
  }

  /// `text` between two `quote`s, a quote inside it doubled: an SQL string literal (') or identifier (").
  static func quoted(_ text: String, by quote: Character) -> String {
    var quotedText = String(quote)
    for character in text {
      if character == quote { quotedText.append(quote) }
      quotedText.append(character)
    }
    quotedText.append(quote)
    return quotedText
  }
}
