internal import IntentsKit

/// UnicornNote's tables: folders, notes, task lists and tasks. Note contents and triggers are
/// stored as their protobuf JSON; a task's temporal trigger also as the instant it first comes due,
/// so reminders are found by an indexed range query.
enum NotesSchema {
  static let migrations: [SchemaMigration] = [
    SchemaMigration(
      id: "notes-1-initial",
      statements: [
        """
        CREATE TABLE notes_folders (
          user_id TEXT NOT NULL,
          name TEXT NOT NULL,
          PRIMARY KEY (user_id, name)
        )
        """,
        """
        CREATE TABLE notes_notes (
          note_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          title TEXT NOT NULL,
          folder TEXT NOT NULL,
          contents TEXT NOT NULL,
          password_protected INTEGER NOT NULL,
          created_at BIGINT NOT NULL,
          modified_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX notes_notes_by_user ON notes_notes (user_id, created_at)",
        """
        CREATE TABLE notes_task_lists (
          list_id TEXT PRIMARY KEY,
          user_id TEXT NOT NULL,
          title TEXT NOT NULL,
          folder TEXT NOT NULL,
          created_at BIGINT NOT NULL,
          modified_at BIGINT NOT NULL
        )
        """,
        """
        CREATE TABLE notes_tasks (
          task_id TEXT PRIMARY KEY,
          list_id TEXT NOT NULL REFERENCES notes_task_lists (list_id),
          user_id TEXT NOT NULL,
          title TEXT NOT NULL,
          status INTEGER NOT NULL,
          position INTEGER NOT NULL,
          spatial_trigger TEXT NOT NULL,
          temporal_trigger TEXT NOT NULL,
          due_at BIGINT,
          created_at BIGINT NOT NULL,
          modified_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX notes_tasks_by_list ON notes_tasks (list_id, position)",
        "CREATE INDEX notes_tasks_due ON notes_tasks (user_id, due_at)",
      ]),
    // Reminders delivered once, even offline: each firing (a time one comes due, the user arrives at
    // or leaves a place) is a row, kept until a live stream takes it; time firings are made up to
    // the user's watermark. The user's named places and last reported location.
    SchemaMigration(
      id: "notes-2-reminder-firings",
      statements: [
        """
        CREATE TABLE notes_reminder_firings (
          user_id TEXT NOT NULL,
          task_id TEXT NOT NULL,
          fired_at BIGINT NOT NULL,
          cause TEXT NOT NULL CHECK (cause IN ('time', 'arrive', 'depart')),
          delivered INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (user_id, task_id, fired_at, cause)
        )
        """,
        "CREATE INDEX notes_reminder_firings_waiting ON notes_reminder_firings (user_id, delivered, fired_at)",
        "CREATE TABLE notes_reminder_watermarks (user_id TEXT PRIMARY KEY, through_ms BIGINT NOT NULL)",
        """
        CREATE TABLE notes_places (
          user_id TEXT NOT NULL,
          name_key TEXT NOT NULL,
          name TEXT NOT NULL,
          latitude DOUBLE PRECISION NOT NULL,
          longitude DOUBLE PRECISION NOT NULL,
          radius_meters DOUBLE PRECISION NOT NULL,
          PRIMARY KEY (user_id, name_key)
        )
        """,
        """
        CREATE TABLE notes_locations (
          user_id TEXT PRIMARY KEY,
          latitude DOUBLE PRECISION NOT NULL,
          longitude DOUBLE PRECISION NOT NULL,
          reported_at BIGINT NOT NULL
        )
        """,
      ]),
  ]
}
