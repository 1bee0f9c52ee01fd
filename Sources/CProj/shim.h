/* Only Karney's geodesic routines (geod_init, geod_inverse, geod_direct,
   geod_polygonarea): vsh needs no projections from PROJ. */
#include <geodesic.h>
