import Foundation
public import VSHCore

extension Geodesic {
    /// The geodesic distance in metres from a position to the nearest point of
    /// the geodesic segment a–b (WGS84): `localDistanceMeters` when the three are
    /// within 0.1° of one another and it can vouch for a ten-thousandth of the
    /// distance, else `karneyDistanceMeters`.
    ///
    /// Why not SpatiaLite's `ST_Distance(g, p, 1)`: it measures the ellipsoidal
    /// distance to the closest point found in planar degrees, which is 2 % off
    /// 500 m from a slanted edge at Las Vegas' latitude (a test pins the case);
    /// the contract is geodesic distance within 0.5 %.
    public static func distanceMeters(from point: Coordinate, toSegment a: Coordinate, _ b: Coordinate)
        -> Double
    {
        localDistanceMeters(from: point, toSegment: a, b)
            ?? karneyDistanceMeters(from: point, toSegment: a, b)
    }

    /// The distance from a position to a nearby segment (all three within 0.1°
    /// in latitude and longitude), without PROJ: the segment's closest point is
    /// found on the chord in a plane scaled by the ellipsoid's radii of
    /// curvature (twice, the second time at the middle latitude of the position
    /// and that point) and measured with `shortDistanceMeters`. The chord runs
    /// straight in latitude and longitude; the geodesic bows away from it by at
    /// most L² (sin α + cos² α) tan φ / 8R over a segment of length L, which is
    /// bounded here by twice L² tan φ / 8R plus a margin. Nil when that bound
    /// exceeds 1e-4 of the distance (a position close to a long edge, or near a
    /// pole): then Karney's geodesics decide.
    ///
    /// Why: the nearest stop of a position no stop covers (`vsh locate`, a
    /// check-in's rejection) was the one thing that made such a command load PROJ
    /// and its 40 libraries, 10 ms of its 20.
    public static func localDistanceMeters(from p: Coordinate, toSegment a: Coordinate, _ b: Coordinate)
        -> Double?
    {
        func wrapped(_ degrees: Double) -> Double {
            degrees > 180 ? degrees - 360 : (degrees < -180 ? degrees + 360 : degrees)
        }
        let (ax, ay) = (wrapped(a.longitude - p.longitude), a.latitude - p.latitude)
        let (bx, by) = (wrapped(b.longitude - p.longitude), b.latitude - p.latitude)
        guard max(abs(ax), abs(ay), abs(bx), abs(by)) < 0.1, abs(p.latitude) < 85 else { return nil }
        var middle = p.latitude
        var t = 0.0
        for _ in 0..<2 {
            // Metres a degree east and north at `middle`.
            let phi = middle * .pi / 180
            let (n, m) = radiiOfCurvature(phi)
            let kx: Double = n * cos(phi) * Double.pi / 180
            let ky: Double = m * Double.pi / 180
            let ux = ax * kx
            let uy = ay * ky
            let dx = (bx - ax) * kx
            let dy = (by - ay) * ky
            let length2 = dx * dx + dy * dy
            t = length2 > 0 ? max(0, min(1, -(ux * dx + uy * dy) / length2)) : 0
            middle = p.latitude + (ay + t * (by - ay)) / 2
        }
        var longitude = p.longitude + ax + t * (bx - ax)
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        let closest = Coordinate(unchecked: p.latitude + ay + t * (by - ay), longitude)
        let distance = min(
            shortDistanceMeters(p, closest), shortDistanceMeters(p, a), shortDistanceMeters(p, b))
        let length = shortDistanceMeters(a, b)
        let steepest = max(abs(a.latitude), abs(b.latitude)) * .pi / 180
        let bow = length * length * (tan(steepest) + 0.01) / (4 * semiMajor)
        guard bow <= 1e-4 * distance else { return nil }
        return distance
    }

    /// `distanceMeters(from:toSegment:)` by Karney's geodesics at any range:
    /// minimises the distance along the segment by golden-section search on
    /// `geod_direct` points, to a millimetre.
    public static func karneyDistanceMeters(from point: Coordinate, toSegment a: Coordinate, _ b: Coordinate)
        -> Double
    {
        let edge = inverse(a, b)
        if edge.distanceMeters < 1e-3 { return min(distanceMeters(point, a), distanceMeters(point, b)) }
        func at(_ s: Double) -> Double {
            distanceMeters(point, destination(from: a, azimuth: edge.initialAzimuth, distanceMeters: s))
        }
        // Distance to points of a geodesic is unimodal along it for the spans of
        // stops (far below a quarter meridian), so golden-section search finds the minimum.
        let ratio = (5.0.squareRoot() - 1) / 2
        var low = 0.0
        var high = edge.distanceMeters
        var x1 = high - ratio * (high - low)
        var x2 = low + ratio * (high - low)
        var f1 = at(x1)
        var f2 = at(x2)
        while high - low > 1e-3 {
            if f1 < f2 {
                high = x2
                x2 = x1
                f2 = f1
                x1 = high - ratio * (high - low)
                f1 = at(x1)
            } else {
                low = x1
                x1 = x2
                f1 = f2
                x2 = low + ratio * (high - low)
                f2 = at(x2)
            }
        }
        return min(f1, f2, distanceMeters(point, a), distanceMeters(point, b))
    }

    /// The geodesic distance in metres from a position to a geofence's boundary
    /// (every ring, holes included). For a position outside the fence this is
    /// its distance to the fence; callers decide inside-ness with `ST_Covers` first.
    public static func distanceMeters(from point: Coordinate, toBoundaryOf geofence: Geofence) -> Double {
        var best = Double.infinity
        for polygon in geofence.polygons {
            for ring in polygon.rings {
                for (a, b) in zip(ring.positions, ring.positions.dropFirst()) {
                    // A segment cannot be nearer than its nearer end minus its length (with
                    // room for the 1e-6 of `shortDistanceMeters`).
                    let nearEnd = min(shortDistanceMeters(point, a), shortDistanceMeters(point, b))
                    let length = shortDistanceMeters(a, b)
                    if nearEnd * (1 - 1e-5) - length * (1 + 1e-5) >= best { continue }
                    best = min(best, distanceMeters(from: point, toSegment: a, b))
                }
            }
        }
        return best
    }
}
