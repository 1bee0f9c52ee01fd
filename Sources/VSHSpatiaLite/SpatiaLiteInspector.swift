internal import GRDB
public import VSHCore
import VSHGeodesy

/// Checks geofences: GEOS through SpatiaLite (`ST_IsValidReason(g)`) for
/// topology (self-intersections, holes outside their shell, too few distinct
/// points), and PROJ's `geod_polygonarea` for the area on the ellipsoid.
/// Not `ST_Area(g, 1)`: RTTOPO refuses rings that cross the equator (and
/// prints to stderr); Karney's algorithm takes any ring.
public final class SpatiaLiteInspector: GeometryOperations, Sendable {
    let database: SpatiaLiteDatabase

    init(database: SpatiaLiteDatabase) {
        self.database = database
    }

    /// An inspector on a private in-memory database, for validating hunt files
    /// without touching any vsh database.
    public static func standalone() throws -> SpatiaLiteInspector {
        let database = try SpatiaLiteDatabase(path: nil, busyTimeout: 0)
        try database.run { writer in
            try writer.writeWithoutTransaction { db in
                try db.requireOne(
                    "SELECT InitSpatialMetadata(1, 'WGS84')", what: "initialise SpatiaLite metadata")
            }
        }
        return SpatiaLiteInspector(database: database)
    }

    /// GEOS's validity (`ST_IsValidReason`) and Karney's area for a geofence.
    public func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
        try database.run { writer in
            try writer.read { db in
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT ST_IsValidReason(GeomFromText(?, 4326)) AS reason",
                    arguments: [geofence.wkt])
                let area = Geodesic.areaSquareMeters(of: geofence)
                guard let row, let reason = row["reason"] as String? else {
                    return GeofenceInspection(
                        invalidReason: "SpatiaLite could not read the geometry", areaSquareMeters: area)
                }
                return GeofenceInspection(
                    invalidReason: reason == "Valid Geometry" ? nil : Self.plainReason(reason),
                    areaSquareMeters: area)
            }
        }
    }

    /// GEOS's reason in words (`GeofenceInspection.plainReason`).
    static func plainReason(_ reason: String) -> String { GeofenceInspection.plainReason(reason) }
}

extension Database {
    /// Runs a SpatiaLite management function that answers 1 on success.
    func requireOne(_ sql: String, what: String) throws {
        let result = try Int.fetchOne(self, sql: sql)
        guard result == 1 else {
            throw DatabaseError(resultCode: .SQLITE_ERROR, message: "SpatiaLite could not \(what)", sql: sql)
        }
    }
}
