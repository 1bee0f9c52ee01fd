import Foundation
internal import GRDB
public import VSHCore
import VSHGeodesy

/// Geometry operations for authoring, done by GEOS and PROJ through SpatiaLite.
/// Lengths in metres are honoured by working in the position's UTM zone
/// (EPSG 326xx/327xx, WGS84) and transforming back to WGS84.
extension SpatiaLiteInspector {
    /// The EPSG code of the WGS84 UTM zone around a position.
    static func utmSRID(_ p: Coordinate) -> Int {
        let zone = min(60, max(1, Int(((p.longitude + 180) / 6).rounded(.down)) + 1))
        return (p.latitude >= 0 ? 32600 : 32700) + zone
    }

    /// Reads SpatiaLite's GeoJSON for a geometry back into a geofence.
    private func geofence(fromGeoJSON text: String?) throws -> Geofence {
        guard let text, let value = try? JSONValue.parse(text) else {
            throw SpatialOperationError.emptyResult
        }
        do {
            return try HuntFile.geofence(from: value)
        } catch {
            throw SpatialOperationError.unexpectedResult("\(error)")
        }
    }

    private func scalar<T: DatabaseValueConvertible>(_ sql: String, _ arguments: StatementArguments) throws
        -> T?
    {
        try database.run { writer in
            try writer.read { db in try T.fetchOne(db, sql: sql, arguments: arguments) }
        }
    }

    /// The area enclosed by a walked perimeter: the positions joined into a
    /// closed line, noded where it crosses itself (`ST_UnaryUnion`), turned
    /// into faces (`ST_Polygonize`) and merged. Loops and holes smaller than
    /// `minFraction` of the whole (GPS jitter at the start and end, a step back
    /// across one's own path) are dropped or filled.
    public func enclosedArea(_ positions: [Coordinate], minFraction: Double) throws -> Geofence {
        guard positions.count >= 3 else { throw SpatialOperationError.tooFewPositions }
        let ring = positions + [positions[0]]
        let wkt = "LINESTRING(" + ring.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",") + ")"
        let json: String? = try scalar(
            "SELECT AsGeoJSON(ST_UnaryUnion(ST_Polygonize(ST_UnaryUnion(GeomFromText(?1, 4326)))), 15)", [wkt]
        )
        guard json != nil else { throw SpatialOperationError.noArea }
        let faces = try geofence(fromGeoJSON: json)
        let areas = faces.polygons.map { Geodesic.areaSquareMeters(of: Geofence($0)) }
        let total = areas.reduce(0, +)
        let kept = zip(faces.polygons, areas).filter { $0.1 >= minFraction * total }.map { polygon, _ in
            Polygon(
                shell: polygon.shell,
                holes: polygon.holes.filter { Geodesic.areaSquareMeters(of: $0) >= minFraction * total })
        }
        guard !kept.isEmpty, total > 0 else { throw SpatialOperationError.noArea }
        return try Geofence(kind: kept.count == 1 ? .polygon : .multiPolygon, polygons: kept)
    }

    /// Douglas-Peucker simplification that keeps the topology valid
    /// (`ST_SimplifyPreserveTopology`), with the tolerance in metres.
    public func simplified(_ geofence: Geofence, toleranceMeters: Double) throws -> Geofence {
        guard toleranceMeters > 0 else { return geofence }
        let srid = Self.utmSRID(geofence.bounds.center)
        let json: String? = try scalar(
            "SELECT AsGeoJSON(ST_Transform(ST_SimplifyPreserveTopology(ST_Transform(GeomFromText(?1, 4326), ?2), ?3), 4326), 15)",
            [geofence.wkt, srid, toleranceMeters])
        return try self.geofence(fromGeoJSON: json)
    }

    /// The convex hull of positions, grown by `bufferMeters` (`ST_ConvexHull`,
    /// `ST_Buffer` with 4 segments a quarter circle).
    public func hull(of positions: [Coordinate], bufferMeters: Double) throws -> Geofence {
        guard !positions.isEmpty else { throw SpatialOperationError.noPositions }
        let wkt =
            "MULTIPOINT(" + positions.map { "(\($0.longitude) \($0.latitude))" }.joined(separator: ",") + ")"
        let srid = Self.utmSRID(positions[0])
        let json: String? = try scalar(
            "SELECT AsGeoJSON(ST_Transform(ST_Buffer(ST_ConvexHull(ST_Transform(GeomFromText(?1, 4326), ?2)), ?3, 4), 4326), 15)",
            [wkt, srid, bufferMeters])
        return try geofence(fromGeoJSON: json)
    }

    /// A Polygon or MultiPolygon from well-known text (longitude first).
    /// - Throws: `SpatialOperationError` when SpatiaLite cannot read it or it is not polygonal.
    public func geofence(wkt: String) throws -> Geofence {
        guard wkt.count <= 4_000_000 else { throw SpatialOperationError.wktTooLong }
        let json: String? = try scalar("SELECT AsGeoJSON(GeomFromText(?1, 4326), 15)", [wkt])
        guard json != nil else {
            throw SpatialOperationError.unreadableWKT
        }
        return try geofence(fromGeoJSON: json)
    }

    /// The area two geofences share, in square metres (0 when they only touch).
    public func sharedAreaSquareMeters(_ a: Geofence, _ b: Geofence) throws -> Double {
        let srid = Self.utmSRID(a.bounds.center)
        let area: Double? = try scalar(
            "SELECT ST_Area(ST_Intersection(ST_Transform(GeomFromText(?1, 4326), ?3), ST_Transform(GeomFromText(?2, 4326), ?3)))",
            [a.wkt, b.wkt, srid])
        return area ?? 0
    }

    /// A point inside the geofence: its centroid when that is inside, else a point on its surface.
    public func insidePoint(_ geofence: Geofence) throws -> Coordinate {
        let text: String? = try scalar(
            """
            SELECT AsText(CASE WHEN ST_Covers(g, ST_Centroid(g)) THEN ST_Centroid(g) ELSE ST_PointOnSurface(g) END)
            FROM (SELECT GeomFromText(?1, 4326) AS g)
            """, [geofence.wkt])
        let numbers = (text ?? "").dropFirst(6).dropLast().split(separator: " ").compactMap { Double($0) }
        guard numbers.count == 2 else { return geofence.bounds.center }
        return Coordinate(unchecked: numbers[1], numbers[0])
    }
}
