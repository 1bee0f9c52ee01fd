#include <sqlite3.h>
#include <spatialite.h>
