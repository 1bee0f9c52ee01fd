#include <sqlite3.h>
#include <spatialite.h>

/* sqlite3_config is variadic, which Swift cannot call. Lets file names be file: URIs (for a
   read-only league: ?immutable=1), process-wide; it works only before SQLite's first use. */
static inline int vsh_sqlite_enable_uri(void) { return sqlite3_config(SQLITE_CONFIG_URI, 1); }
