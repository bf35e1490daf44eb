"""UnicornFit's store: one SQLite file, WAL with synchronous=FULL, so a handled intent is on disk
before its answer. Writes run one at a time in BEGIN IMMEDIATE transactions; the ledger of handled
intents commits in the same transaction as their effect."""
import os
import sqlite3
import threading

MIGRATIONS = [
    """
    CREATE TABLE workouts (
      identifier TEXT PRIMARY KEY,
      user_id TEXT NOT NULL,
      name TEXT NOT NULL,
      vocabulary_identifier TEXT NOT NULL,
      state INTEGER NOT NULL,
      goal_value REAL,
      goal_unit INTEGER NOT NULL,
      location INTEGER NOT NULL,
      open_ended INTEGER NOT NULL,
      started_ms INTEGER NOT NULL,
      finished_ms INTEGER,
      active_ms INTEGER NOT NULL,
      resumed_ms INTEGER
    );
    CREATE INDEX workouts_by_user ON workouts (user_id, started_ms DESC);
    CREATE TABLE handled_intents (
      user_id TEXT NOT NULL,
      identifier TEXT NOT NULL,
      intent_class TEXT NOT NULL,
      payload BLOB NOT NULL,
      response BLOB NOT NULL,
      handled_ms INTEGER NOT NULL,
      PRIMARY KEY (user_id, identifier)
    );
    CREATE TABLE user_vocabulary (
      user_id TEXT NOT NULL,
      vocabulary_type INTEGER NOT NULL,
      position INTEGER NOT NULL,
      phrase TEXT NOT NULL,
      vocabulary_identifier TEXT NOT NULL,
      PRIMARY KEY (user_id, vocabulary_type, position)
    );
    """,
]


def private(path):
    """Makes the store's folder 0700 when it is missing (an existing one is the operator's), and the
    file 0600, tightening one an earlier run left open, and its journal files where they exist:
    SQLite makes new ones with the file's mode."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    for target in (path, path + "-wal", path + "-shm"):
        if os.path.exists(target) and os.stat(target).st_uid == os.geteuid() and os.stat(target).st_mode & 0o077:
            os.chmod(target, 0o600)


class Store:
    """The SQLite file at `path`, migrated to the newest schema when opened."""

    def __init__(self, path):
        if path != ":memory:":
            private(path)
        self._connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=5.0)
        self._connection.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self._lock:
            self._connection.execute("PRAGMA journal_mode=WAL")
            self._connection.execute("PRAGMA synchronous=FULL")
            self._connection.execute("PRAGMA foreign_keys=ON")
        self._migrate()

    def _migrate(self):
        def migrate(database):
            version = database.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, script.split(";")):
                    database.execute(statement)
                database.execute(f"PRAGMA user_version={number}")

        self.write(migrate)

    def write(self, body):
        """Runs `body(connection)` in one write transaction; rolled back if it raises."""
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                result = body(self._connection)
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")
            return result

    def read(self, body):
        """Runs `body(connection)` in one read transaction (a consistent snapshot)."""
        with self._lock:
            self._connection.execute("BEGIN")
            try:
                return body(self._connection)
            finally:
                self._connection.execute("COMMIT")

    def close(self):
        with self._lock:
            self._connection.close()
