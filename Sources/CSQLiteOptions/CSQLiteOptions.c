#include "CSQLiteOptions.h"

// SQLiteNIO's bundled SQLite (VaporCSQLite) prefixes its symbols; declared here rather than
// through its header, which is not a product of the sqlite-nio package.
int sqlite_nio_sqlite3_db_config(struct sqlite3 *db, int op, ...);

// SQLITE_DBCONFIG_ENABLE_QPSG and SQLITE_DBCONFIG_ENABLE_TRIGGER in sqlite3.h.
enum { intentmesh_dbconfig_enable_qpsg = 1007, intentmesh_dbconfig_enable_trigger = 1003 };

int intentmesh_sqlite_enable_qpsg(struct sqlite3 *db) {
  int enabled = 0;
  return sqlite_nio_sqlite3_db_config(db, intentmesh_dbconfig_enable_qpsg, 1, &enabled);
}

int intentmesh_sqlite_enable_triggers(struct sqlite3 *db, int enable) {
  int enabled = 0;
  return sqlite_nio_sqlite3_db_config(db, intentmesh_dbconfig_enable_trigger, enable, &enabled);
}
