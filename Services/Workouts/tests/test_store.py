"""store: the schema migrations and the write transaction."""
import os
import sqlite3

import pytest

from unicornfit.store import MIGRATIONS, Store


def tables(store):
    rows = store.read(lambda db: db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").fetchall())
    return [row["name"] for row in rows]


def user_version(store):
    return store.read(lambda db: db.execute("PRAGMA user_version").fetchone()[0])


def test_a_new_store_is_migrated_to_the_newest_schema(store):
    assert user_version(store) == len(MIGRATIONS) == 1
    assert tables(store) == ["handled_intents", "user_vocabulary", "workouts"]
    assert store.read(lambda db: db.execute("PRAGMA journal_mode").fetchone()[0]) == "wal"


def test_reopening_keeps_the_data_and_migrates_nothing_again(tmp_path):
    path = str(tmp_path / "w.sqlite")
    first = Store(path)
    first.write(lambda db: db.execute(
        "INSERT INTO user_vocabulary VALUES ('alice', 200, 0, 'Moon Gallop', '')"))
    first.close()
    again = Store(path)  # would fail with "table workouts already exists" if it migrated again
    try:
        assert user_version(again) == 1
        assert again.read(lambda db: db.execute("SELECT phrase FROM user_vocabulary").fetchone()[0]) == "Moon Gallop"
    finally:
        again.close()


def test_a_write_that_raises_is_rolled_back(store):
    def half_done(db):
        db.execute("INSERT INTO user_vocabulary VALUES ('alice', 200, 0, 'Moon Gallop', '')")
        raise RuntimeError("changed my mind")

    with pytest.raises(RuntimeError, match="changed my mind"):
        store.write(half_done)
    assert store.read(lambda db: db.execute("SELECT COUNT(*) FROM user_vocabulary").fetchone()[0]) == 0
    # the store is usable afterwards: no transaction left open, the lock released
    assert store.write(lambda db: db.execute("INSERT INTO user_vocabulary VALUES ('alice', 200, 0, 'x', '')").rowcount) == 1
    assert store.read(lambda db: db.execute("SELECT COUNT(*) FROM user_vocabulary").fetchone()[0]) == 1


def test_a_failed_statement_rolls_back_the_whole_write(store):
    def duplicate(db):
        db.execute("INSERT INTO user_vocabulary VALUES ('alice', 200, 0, 'first', '')")
        db.execute("INSERT INTO user_vocabulary VALUES ('alice', 200, 0, 'same key', '')")

    with pytest.raises(sqlite3.IntegrityError):
        store.write(duplicate)
    assert store.read(lambda db: db.execute("SELECT COUNT(*) FROM user_vocabulary").fetchone()[0]) == 0


def test_the_store_is_its_users_only(tmp_path):
    """Every user's workouts: a folder made for it 0700, the file 0600, an open old file tightened;
    an existing folder is left as it is (it may be /tmp)."""
    folder = tmp_path / "data"
    path = str(folder / "workouts.sqlite")
    store = Store(path)
    assert os.stat(folder).st_mode & 0o777 == 0o700
    assert os.stat(path).st_mode & 0o777 == 0o600
    del store
    os.chmod(path, 0o644)
    os.chmod(folder, 0o755)
    Store(path)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert os.stat(folder).st_mode & 0o777 == 0o755
