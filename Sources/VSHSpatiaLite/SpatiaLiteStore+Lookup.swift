import Foundation
internal import GRDB
public import VSHCore
import VSHGeodesy

extension SpatiaLiteStore {
    /// The stops whose geofence covers a position, in hunt then stop order.
    ///
    /// Boundary-inclusive (`ST_Covers`): a position on an edge or vertex is
    /// inside, one in a hole is not. Candidates come from the R*Tree spatial
    /// index `idx_stops_geom` (whose float32 boxes are rounded outwards, so no
    /// candidate is lost); each is decided on its stored binary geofence by
    /// `GeofenceIndex`'s certified test, and a position it cannot certify (within
    /// rounding distance of an edge) or a damaged binary form is asked of
    /// SpatiaLite (`spatiaLiteStops(covering:)`), which stays the authority. The R*Tree
    /// is SQLite's own module: a check-in need not load SpatiaLite at all.
    public func stops(covering position: Coordinate, inHunt huntID: String? = nil) async throws
        -> [StopReference]
    {
        try await read { db in try Self.covering(db, position, huntID: huntID) }
    }

    /// Every position's covering stops, in one read transaction.
    public func stops(covering positions: [Coordinate], inHunt huntID: String?) async throws
        -> [[StopReference]]
    {
        try await read { db in try positions.map { try Self.covering(db, $0, huntID: huntID) } }
    }

    /// SpatiaLite's own answer (R*Tree candidates, then GEOS's `ST_Covers`): the authority
    /// `stops(covering:)` defers to near an edge; tests hold the two to each other.
    public func spatiaLiteStops(covering position: Coordinate, inHunt huntID: String? = nil) async throws
        -> [StopReference]
    {
        try await read { db in try Self.spatiaLiteCovering(db, position, huntID: huntID) }
    }

    static func covering(_ db: Database, _ position: Coordinate, huntID: String?) throws -> [StopReference] {
        let rows = try Row.fetchAll(
            try db.cachedStatement(sql: candidatesSQL),
            arguments: [position.longitude, position.latitude, huntID])
        if rows.isEmpty { return [] }
        var builder = GeofenceIndex.Builder()
        for row in rows {
            let added = try row.withUnsafeData(atIndex: 3) { data in
                data?.withUnsafeBytes {
                    builder.add(huntID: row[0], stopID: row[1], name: row[2], storedBytes: $0)
                } ?? false
            }
            guard added else { return try spatiaLiteCovering(db, position, huntID: huntID) }
        }
        let index = GeofenceIndex(builder)
        switch index.covering(latitude: position.latitude, longitude: position.longitude) {
        case .covered(let found):
            return found.map {
                StopReference(
                    huntID: index.entries[$0].huntID, stopID: index.entries[$0].stopID,
                    name: index.entries[$0].name)
            }
        case .undecided:
            return try spatiaLiteCovering(db, position, huntID: huntID)
        }
    }

    static func spatiaLiteCovering(_ db: Database, _ position: Coordinate, huntID: String?) throws
        -> [StopReference]
    {
        try SpatiaLiteDatabase.attachSpatiaLite(db)
        return try Row.fetchAll(
            try db.cachedStatement(sql: coveringSQL),
            arguments: [position.longitude, position.latitude, huntID]
        ).map(reference)
    }

    /// The stops whose R*Tree box holds a position, with their binary geofences, in catalog order.
    static let candidatesSQL = """
        SELECT s.hunt_id, s.id, s.name, s.geometry_bin
        FROM stops s JOIN hunts h ON h.id = s.hunt_id
        WHERE s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmin <= ?1 AND xmax >= ?1 AND ymin <= ?2 AND ymax >= ?2)
          AND (?3 IS NULL OR s.hunt_id = ?3)
        ORDER BY h.position, s.position
        """

    static let coveringSQL = """
        SELECT s.hunt_id, s.id, s.name
        FROM stops s JOIN hunts h ON h.id = s.hunt_id
        WHERE s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmin <= ?1 AND xmax >= ?1 AND ymin <= ?2 AND ymax >= ?2)
          AND ST_Covers(s.geom, MakePoint(?1, ?2, 4326)) = 1
          AND (?3 IS NULL OR s.hunt_id = ?3)
        ORDER BY h.position, s.position
        """

    /// SQLite's plan for the covering lookup (`EXPLAIN QUERY PLAN`), one line
    /// per step: the evidence that lookups go through the R*Tree, for tests and diagnostics.
    public func coveringQueryPlan() async throws -> [String] {
        try await read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + Self.coveringSQL, arguments: [0.0, 0.0, nil])
                .map { $0["detail"] as String? ?? "" }
        }
    }

    static func reference(_ row: Row) -> StopReference {
        StopReference(huntID: row[0], stopID: row[1], name: row[2])
    }

    /// The stop nearest to a position that no stop covers, and its geodesic
    /// distance in metres on the WGS84 ellipsoid, or nil when there are no stops.
    ///
    /// Searches the spatial index in growing boxes (100 m, 1 km, ... around the
    /// point); a box of half-size r holds every stop within r of the point, so
    /// once the best candidate is no farther than r it is the nearest of all.
    /// Distances are measured to each candidate's boundary with Karney's
    /// geodesics (`Geodesic.distanceMeters(from:toBoundaryOf:)`), not with
    /// `ST_Distance(g, p, 1)`, which is off by percents (see there).
    public func nearestStop(to position: Coordinate, inHunt huntID: String? = nil) async throws
        -> NearestStop?
    {
        try await read { db in try Self.nearest(db, position, huntID: huntID) }
    }

    static func nearest(_ db: Database, _ position: Coordinate, huntID: String?) throws -> NearestStop? {
        var radius = 100.0
        while true {
            let rows: [Row]
            if radius < 20_000_000 {
                let dLat = radius / 110_574 * 1.01
                let cosLat = cos(min(89.9, abs(position.latitude) + dLat) * .pi / 180)
                let dLon = min(360, dLat * 110_574 / (111_320 * cosLat))
                let lon: Double = position.longitude
                let lat: Double = position.latitude
                var box = StatementArguments([lon - dLon, lon + dLon, lat - dLat, lat + dLat])
                box += [huntID]
                rows = try Row.fetchAll(try db.cachedStatement(sql: Self.candidatesInBoxSQL), arguments: box)
            } else {
                rows = try Row.fetchAll(
                    try db.cachedStatement(sql: Self.allCandidatesSQL), arguments: [huntID])
            }
            var best: NearestStop?
            for row in rows {
                let geometry: String = row[3]
                guard let fence = try? HuntFile.geofence(from: try JSONValue.parse(geometry)) else {
                    continue
                }
                let distance = Geodesic.distanceMeters(from: position, toBoundaryOf: fence)
                if distance < best?.distanceMeters ?? .infinity {
                    best = NearestStop(stop: Self.reference(row), distanceMeters: distance)
                }
            }
            if let best, best.distanceMeters <= radius || radius >= 20_000_000 { return best }
            if radius >= 20_000_000 { return nil }
            radius *= 10
        }
    }

    static let candidatesInBoxSQL = """
        SELECT s.hunt_id, s.id, s.name, s.geometry_json
        FROM stops s
        WHERE s.pk IN (SELECT pkid FROM idx_stops_geom WHERE xmax >= ?1 AND xmin <= ?2 AND ymax >= ?3 AND ymin <= ?4)
          AND (?5 IS NULL OR s.hunt_id = ?5)
        """

    static let allCandidatesSQL =
        "SELECT s.hunt_id, s.id, s.name, s.geometry_json FROM stops s WHERE ?1 IS NULL OR s.hunt_id = ?1"
}
