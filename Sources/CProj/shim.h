/* Only Karney's geodesic routines (geod_init, geod_inverse, geod_direct,
   geod_polygonarea): vsh needs no projections from PROJ. */
#include <geodesic.h>

#include <vsh_lazy.h>

VSH_LAZY_LIBRARY(vsh_proj_library, "libproj.so", "libproj.so.25")
/* NULL once PROJ is loaded, else the loader's words. */
static inline const char *vsh_proj_load_error(void) { return vsh_proj_library() ? NULL : dlerror(); }
static inline void vsh_geod_init(struct geod_geodesic *g, double a, double f) {
    VSH_LAZY(vsh_proj_library, geod_init)(g, a, f);
}
static inline void vsh_geod_inverse(const struct geod_geodesic *g, double lat1, double lon1, double lat2,
                                    double lon2, double *ps12, double *pazi1, double *pazi2) {
    VSH_LAZY(vsh_proj_library, geod_inverse)(g, lat1, lon1, lat2, lon2, ps12, pazi1, pazi2);
}
static inline void vsh_geod_direct(const struct geod_geodesic *g, double lat1, double lon1, double azi1,
                                   double s12, double *plat2, double *plon2, double *pazi2) {
    VSH_LAZY(vsh_proj_library, geod_direct)(g, lat1, lon1, azi1, s12, plat2, plon2, pazi2);
}
static inline void vsh_geod_polygonarea(const struct geod_geodesic *g, double lats[], double lons[], int n,
                                        double *pA, double *pP) {
    VSH_LAZY(vsh_proj_library, geod_polygonarea)(g, lats, lons, n, pA, pP);
}
