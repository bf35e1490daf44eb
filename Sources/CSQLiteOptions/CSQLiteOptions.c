#include "CSQLiteOptions.h"

#include <string.h>

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

int intentmesh_wal_index_header(const volatile void *region, unsigned char header[48]) {
  // As SQLite's walIndexTryHdr reads it: the first copy, a full barrier, the second; a writer
  // (walIndexWriteHdr) writes the second copy, a barrier, then the first.
  unsigned char second[48];
  const volatile unsigned char *bytes = (const volatile unsigned char *)region;
  for (int i = 0; i < 48; i++) header[i] = bytes[i];
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  for (int i = 0; i < 48; i++) second[i] = bytes[48 + i];
  // isInit, the 13th byte: zero in a header not yet written.
  return memcmp(header, second, 48) == 0 && header[12] != 0;
}
