internal import CLazyLoad
internal import CProj
import Foundation
public import VSHCore

/// Geodesics on the WGS84 ellipsoid, through PROJ's implementation of Karney's
/// algorithms (`geodesic.h`: `geod_inverse`, `geod_direct`, `geod_polygonarea`),
/// the same code pyproj's `Geod` and GeographicLib use. Accurate to nanometres.
public enum Geodesic {
    /// WGS84: a = 6378137 m, f = 1/298.257223563.
    private static let wgs84: geod_geodesic = {
        // PROJ is loaded here, on first use (it comes with SpatiaLite, which every league needs).
        vsh_lazy_require("PROJ", vsh_proj_load_error(), "libproj25")
        var g = geod_geodesic()
        vsh_geod_init(&g, 6_378_137, 1 / 298.257_223_563)
        return g
    }()

    /// The shortest distance between two positions, in metres.
    public static func distanceMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        inverse(a, b).distanceMeters
    }

    /// The distance in metres between two nearby positions (less than 0.1° apart
    /// in latitude and longitude), from the ellipsoid's radii of curvature at
    /// their middle latitude; farther apart, Karney's `distanceMeters`.
    ///
    /// Why: a million-point track spent a third of its reading time in
    /// `geod_inverse`. The local formula's relative error grows as (d / R)²: about
    /// 1e-10 for the 5-50 m between GPS fixes, 1e-7 at 0.1°; a test holds it to
    /// Karney's within 1e-6 on random segments.
    public static func shortDistanceMeters(_ a: Coordinate, _ b: Coordinate) -> Double {
        let dLat = b.latitude - a.latitude
        var dLon = b.longitude - a.longitude
        guard abs(dLat) < 0.1, abs(dLon) < 0.1 || abs(abs(dLon) - 360) < 0.1 else {
            return distanceMeters(a, b)
        }
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let phi = (a.latitude + b.latitude) / 2 * .pi / 180
        let (n, m) = radiiOfCurvature(phi)
        let x = n * cos(phi) * dLon * .pi / 180
        let y = m * dLat * .pi / 180
        return (x * x + y * y).squareRoot()
    }

    /// The ellipsoid's radii of curvature at latitude `phi` (radians): prime vertical (east-west)
    /// and meridional (north-south), in metres.
    static func radiiOfCurvature(_ phi: Double) -> (prime: Double, meridional: Double) {
        let s = sin(phi)
        let w2 = 1 - e2 * s * s
        let w = w2.squareRoot()
        return (semiMajor / w, semiMajor * (1 - e2) / (w2 * w))
    }

    static let semiMajor = 6_378_137.0
    static let e2 = (2 - 1 / 298.257_223_563) / 298.257_223_563

    /// Distance in metres and the azimuths (degrees clockwise from north) at
    /// both ends of the geodesic from `a` to `b`.
    public static func inverse(_ a: Coordinate, _ b: Coordinate) -> (
        distanceMeters: Double, initialAzimuth: Double, finalAzimuth: Double
    ) {
        var s12 = 0.0
        var azi1 = 0.0
        var azi2 = 0.0
        withUnsafePointer(to: wgs84) { g in
            vsh_geod_inverse(g, a.latitude, a.longitude, b.latitude, b.longitude, &s12, &azi1, &azi2)
        }
        return (s12, azi1, azi2)
    }

    /// The position reached from `start` after `distanceMeters` along `azimuth`
    /// (degrees clockwise from north).
    public static func destination(from start: Coordinate, azimuth: Double, distanceMeters: Double)
        -> Coordinate
    {
        var lat2 = 0.0
        var lon2 = 0.0
        var azi2 = 0.0
        withUnsafePointer(to: wgs84) { g in
            vsh_geod_direct(g, start.latitude, start.longitude, azimuth, distanceMeters, &lat2, &lon2, &azi2)
        }
        // geod_direct returns longitudes in [-180, 180]; clamp rounding at the poles.
        return Coordinate(unchecked: max(-90, min(90, lat2)), max(-180, min(180, lon2)))
    }

    /// The area enclosed by a ring in square metres on the ellipsoid, always
    /// positive whatever the ring's orientation. The closing position is not repeated to PROJ.
    public static func areaSquareMeters(of ring: LinearRing) -> Double {
        var lats = ring.positions.dropLast().map(\.latitude)
        var lons = ring.positions.dropLast().map(\.longitude)
        var area = 0.0
        var perimeter = 0.0
        withUnsafePointer(to: wgs84) { g in
            vsh_geod_polygonarea(g, &lats, &lons, Int32(lats.count), &area, &perimeter)
        }
        return abs(area)
    }

    /// A geofence's area: shells minus holes, in square metres.
    public static func areaSquareMeters(of geofence: Geofence) -> Double {
        geofence.polygons.reduce(0) { total, polygon in
            total + areaSquareMeters(of: polygon.shell)
                - polygon.holes.reduce(0) { $0 + areaSquareMeters(of: $1) }
        }
    }
}
