#ifndef INTENTMESH_CSQLITEOPTIONS_H
#define INTENTMESH_CSQLITEOPTIONS_H

struct sqlite3;

/// Turns on SQLite's query planner stability guarantee (SQLITE_DBCONFIG_ENABLE_QPSG) for `db`:
/// a prepared statement keeps its plan whatever values are bound, instead of being re-prepared
/// when a bound value might change the plan (a `column = ?` whose value moves between 0/1 and
/// other integers, a `LIMIT ?`, a `LIKE ?`). Returns SQLite's result code.
///
/// A C function because `sqlite3_db_config` is variadic, which Swift cannot call.
int intentmesh_sqlite_enable_qpsg(struct sqlite3 *db);

/// Turns the triggers of `db` on (`enable` 1) or off (0) for the statements it runs
/// (SQLITE_DBCONFIG_ENABLE_TRIGGER; SQLite prepares its statements again). Returns SQLite's result
/// code.
int intentmesh_sqlite_enable_triggers(struct sqlite3 *db, int enable);

/// Copies the header of a WAL index (the first 48 bytes of the `-shm` file, region 0, as SQLite
/// maps it) into `header` as SQLite's readers read it without a lock: the header's first copy, a
/// memory barrier, then its second copy (its checksum is not checked: the header is only compared
/// with one SQLite has accepted). Returns 1 when the two copies agree and the header has been
/// written (a consistent header: SQLite writes it anew with every commit, every restart of the
/// log and every recovery — the commit counter, the log's length and salts and the checksums of its
/// frames — so two equal headers describe the same committed database), 0 when a writer was
/// changing it or it was never written.
int intentmesh_wal_index_header(const volatile void *region, unsigned char header[48]);

#endif
