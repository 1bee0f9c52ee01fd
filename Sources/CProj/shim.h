/* Only Karney's geodesic routines (geod_init, geod_inverse, geod_direct,
   geod_polygonarea): vsh needs no projections from PROJ. */
#include <geodesic.h>

/* Loaded on first use (dlopen), not at start-up: with the executables linked --as-needed, a
   library whose functions are only reached through these wrappers is not loaded by every
   command (`vsh --help` loaded 74 shared libraries, most of them SpatiaLite's, PROJ's and
   libheif's dependencies: curl, GnuTLS, Kerberos, x265, AV1 codecs). The symbol's type comes from
   the library's own header; each is looked up once and kept (atomics: any thread may be first). */
#include <dlfcn.h>
#include <stddef.h>
#define VSH_PROJ_LIBRARY(function, name, soname)                                 \
    static inline void *function(void) {                                         \
        static void *handle;                                                     \
        void *h = __atomic_load_n(&handle, __ATOMIC_ACQUIRE);                    \
        if (!h) {                                                                \
            h = dlopen(name, RTLD_NOW | RTLD_LOCAL);                             \
            if (!h) h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);                   \
            __atomic_store_n(&handle, h, __ATOMIC_RELEASE);                      \
        }                                                                        \
        return h;                                                                \
    }
#define VSH_PROJ(library, symbol)                                                           \
    ({                                                                                      \
        static __typeof__(&symbol) cached;                                                  \
        __typeof__(&symbol) f = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);                 \
        if (!f) {                                                                           \
            f = (__typeof__(&symbol))dlsym(library(), #symbol);                             \
            __atomic_store_n(&cached, f, __ATOMIC_RELEASE);                                 \
        }                                                                                   \
        f;                                                                                  \
    })

VSH_PROJ_LIBRARY(vsh_proj_library, "libproj.so", "libproj.so.25")
/* NULL once PROJ is loaded, else the loader's words. */
static inline const char *vsh_proj_load_error(void) { return vsh_proj_library() ? NULL : dlerror(); }
static inline void vsh_geod_init(struct geod_geodesic *g, double a, double f) {
    VSH_PROJ(vsh_proj_library, geod_init)(g, a, f);
}
static inline void vsh_geod_inverse(const struct geod_geodesic *g, double lat1, double lon1, double lat2,
                                    double lon2, double *ps12, double *pazi1, double *pazi2) {
    VSH_PROJ(vsh_proj_library, geod_inverse)(g, lat1, lon1, lat2, lon2, ps12, pazi1, pazi2);
}
static inline void vsh_geod_direct(const struct geod_geodesic *g, double lat1, double lon1, double azi1,
                                   double s12, double *plat2, double *plon2, double *pazi2) {
    VSH_PROJ(vsh_proj_library, geod_direct)(g, lat1, lon1, azi1, s12, plat2, plon2, pazi2);
}
static inline void vsh_geod_polygonarea(const struct geod_geodesic *g, double lats[], double lons[], int n,
                                        double *pA, double *pP) {
    VSH_PROJ(vsh_proj_library, geod_polygonarea)(g, lats, lons, n, pA, pP);
}
