#include <sqlite3.h>
#include <spatialite.h>

#include <vsh_lazy.h>

VSH_LAZY_LIBRARY(vsh_spatialite_library, "libspatialite.so", "libspatialite.so.7")
/* NULL once SpatiaLite is loaded, else the loader's words. */
static inline const char *vsh_spatialite_load_error(void) {
    return vsh_spatialite_library() ? NULL : dlerror();
}
static inline void vsh_spatialite_initialize(void) { VSH_LAZY(vsh_spatialite_library, spatialite_initialize)(); }
static inline void *vsh_spatialite_alloc_connection(void) {
    return VSH_LAZY(vsh_spatialite_library, spatialite_alloc_connection)();
}
static inline void vsh_spatialite_init_ex(sqlite3 *db, const void *cache, int verbose) {
    VSH_LAZY(vsh_spatialite_library, spatialite_init_ex)(db, cache, verbose);
}
static inline void vsh_spatialite_cleanup_ex(const void *cache) {
    VSH_LAZY(vsh_spatialite_library, spatialite_cleanup_ex)(cache);
}

/* sqlite3_config is variadic, which Swift cannot call. Lets file names be file: URIs (for a
   read-only league: ?immutable=1), process-wide; it works only before SQLite's first use. */
static inline int vsh_sqlite_enable_uri(void) { return sqlite3_config(SQLITE_CONFIG_URI, 1); }

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A private scratch folder that a terminating signal removes before the signal takes its
   default course (vsh replay --dry-run's copy of a league). The handler uses only unlink,
   rmdir, sigaction and raise, which are async-signal-safe; it is installed synchronously, so
   no signal that arrives once the folder exists can miss it. */
enum { VSH_SCRATCH_FILES = 5, VSH_SCRATCH_PATH = 4096 };

/* The state lives in function-local statics: Swift's importer emits a header's static inline
   functions, not its static variables. */
struct vsh_scratch_state {
    char paths[VSH_SCRATCH_FILES][VSH_SCRATCH_PATH];
    volatile sig_atomic_t armed;
};
static inline struct vsh_scratch_state *vsh_scratch(void) {
    static struct vsh_scratch_state state;
    return &state;
}
static inline int vsh_scratch_signal(int index) {
    return index == 0 ? SIGTERM : index == 1 ? SIGINT : SIGHUP;
}

static inline void vsh_scratch_on_signal(int number) {
    struct vsh_scratch_state *state = vsh_scratch();
    if (state->armed) {
        for (int i = 1; i < VSH_SCRATCH_FILES; i++) unlink(state->paths[i]);
        rmdir(state->paths[0]);
    }
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigaction(number, &fallback, NULL);
    raise(number); /* pending until the handler returns: then the default action ends the process */
}

/* Arms the handler for `folder` holding `file` (and its -wal, -shm and -journal files).
   Returns 0, or -1 when a path is too long. */
static inline int vsh_scratch_arm(const char *folder, const char *file) {
    struct vsh_scratch_state *state = vsh_scratch();
    const char *suffixes[4] = {"", "-wal", "-shm", "-journal"};
    if (snprintf(state->paths[0], VSH_SCRATCH_PATH, "%s", folder) >= VSH_SCRATCH_PATH) return -1;
    for (int i = 0; i < 4; i++) {
        if (snprintf(state->paths[i + 1], VSH_SCRATCH_PATH, "%s/%s%s", folder, file, suffixes[i]) >=
            VSH_SCRATCH_PATH)
            return -1;
    }
    state->armed = 1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = vsh_scratch_on_signal;
    sigemptyset(&action.sa_mask);
    for (int i = 0; i < 3; i++) sigaddset(&action.sa_mask, vsh_scratch_signal(i));
    for (int i = 0; i < 3; i++) sigaction(vsh_scratch_signal(i), &action, NULL);
    return 0;
}

/* Gives the signals back their default course (the folder is then the caller's to remove). */
static inline void vsh_scratch_disarm(void) {
    vsh_scratch()->armed = 0;
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    for (int i = 0; i < 3; i++) sigaction(vsh_scratch_signal(i), &fallback, NULL);
}
