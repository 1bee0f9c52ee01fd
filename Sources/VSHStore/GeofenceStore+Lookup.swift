import Foundation
internal import GRDB
public import VSHCore

/// A stop as a lookup names it.
public struct StopReference: Hashable, Sendable {
    public let huntID: String
    public let stopID: String
    public let name: String
}

/// The stop nearest to a point that no stop covers.
public struct NearestStop: Hashable, Sendable {
    public let stop: StopReference
    /// Geodesic distance on the WGS84 ellipsoid from the point to the stop's boundary, in metres.
    public let distanceMeters: Double
}

extension GeofenceStore {
    /// The stops whose geofence covers a position, in hunt then stop order.
    ///
    /// Boundary-inclusive (`ST_Covers`): a position on an edge or vertex is
    /// inside, one in a hole is not. Candidates come from the R*Tree spatial
    /// index `idx_stops_geom` (whose float32 boxes are rounded outwards, so no
    /// candidate is lost), then GEOS decides.
    public func stops(covering position: Coordinate) throws -> [StopReference] {
        try run {
            try queue.inDatabase { db in
                try Row.fetchAll(
                    try db.cachedStatement(sql: Self.coveringSQL),
                    arguments: [position.longitude, position.latitude]
                ).map(Self.reference)
            }
        }
    }

    static let coveringSQL = """
        SELECT s.hunt_id, s.id, s.name
        FROM stops s JOIN hunts h ON h.id = s.hunt_id
        WHERE s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmin <= ?1 AND xmax >= ?1 AND ymin <= ?2 AND ymax >= ?2)
          AND ST_Covers(s.geom, MakePoint(?1, ?2, 4326)) = 1
        ORDER BY h.position, s.position
        """

    static func reference(_ row: Row) -> StopReference {
        StopReference(huntID: row[0], stopID: row[1], name: row[2])
    }

    /// The stop nearest to a position and its geodesic distance (`ST_Distance(g, p, 1)`,
    /// WGS84 ellipsoid), or nil when there are no stops.
    ///
    /// Searches the spatial index in growing boxes (100 m, 1 km, ... around the
    /// point). A box of half-size r holds every stop within r, so once the best
    /// candidate is no farther than r it is the nearest of all.
    public func nearestStop(to position: Coordinate) throws -> NearestStop? {
        try run {
            try queue.inDatabase { db in
                var radius = 100.0
                while radius < 25_000_000 {
                    let dLat = radius / 110_574 * 1.01
                    let cosLat = cos(min(89.9, abs(position.latitude) + dLat) * .pi / 180)
                    let dLon = min(360, dLat * 110_574 / (111_320 * cosLat))
                    let lon: Double = position.longitude
                    let lat: Double = position.latitude
                    let box: [Double] = [lon - dLon, lon + dLon, lat - dLat, lat + dLat]
                    let arguments = StatementArguments([lon, lat] + box)
                    let candidate = try Row.fetchOne(try db.cachedStatement(sql: Self.nearestInBoxSQL), arguments: arguments)
                    if let candidate, let distance = candidate[3] as Double?, distance <= radius {
                        return NearestStop(stop: Self.reference(candidate), distanceMeters: distance)
                    }
                    radius *= 10
                }
                let row = try Row.fetchOne(
                    try db.cachedStatement(sql: Self.nearestAnywhereSQL),
                    arguments: [position.longitude, position.latitude])
                guard let row, let distance = row[3] as Double? else { return nil }
                return NearestStop(stop: Self.reference(row), distanceMeters: distance)
            }
        }
    }

    static let nearestInBoxSQL = """
        SELECT s.hunt_id, s.id, s.name, ST_Distance(s.geom, MakePoint(?1, ?2, 4326), 1) AS d
        FROM stops s
        WHERE s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmax >= ?3 AND xmin <= ?4 AND ymax >= ?5 AND ymin <= ?6)
        ORDER BY d LIMIT 1
        """

    static let nearestAnywhereSQL = """
        SELECT s.hunt_id, s.id, s.name, ST_Distance(s.geom, MakePoint(?1, ?2, 4326), 1) AS d
        FROM stops s ORDER BY d LIMIT 1
        """
}
