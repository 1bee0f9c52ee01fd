public import Foundation
internal import GRDB
import VSHCore

/// The vsh database: one SpatiaLite file holding a synced, indexed copy of the
/// hunt files (and, as later parts land, players and their check-ins).
///
/// Stops live in `stops` with a SpatiaLite `MULTIPOLYGON` geometry column
/// (SRID 4326) and an R*Tree spatial index (`idx_stops_geom`); every lookup
/// goes through the index first and GEOS second. The file is an ordinary
/// SpatiaLite database: `ogrinfo`, QGIS and `spatialite` open it.
public final class GeofenceStore {
    public let path: String
    let database: SpatiaLiteDatabase
    /// GEOS validity and ellipsoidal areas, on this database's connection.
    public let inspector: SpatiaLiteInspector

    /// How long a writer waits for another process's transaction, in seconds.
    public static let busyTimeoutSeconds: TimeInterval = 10

    /// Opens (creating when needed) the database at `path` and brings its schema up to date.
    /// - Throws: `StoreError` (busy: exit 75; not a database: 65; cannot open: 66).
    public init(path: String) throws {
        self.path = path
        database = try SpatiaLiteDatabase(path: path, busyTimeout: Self.busyTimeoutSeconds)
        inspector = SpatiaLiteInspector(database: database)
        try database.run { try Self.migrator.migrate($0) }
    }

    var queue: DatabaseQueue { database.queue }

    /// Runs database work, turning GRDB errors into `StoreError`s that name the file.
    func run<T>(_ work: () throws -> T) throws -> T {
        try database.run { _ in try work() }
    }

    /// Schema history; each step runs once, in its own transaction.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-geofences") { db in
            // Inside the migration's transaction: 0 = no transaction of its own (and fast; without any
            // transaction it takes over 40 s, one autocommit per spatial_ref_sys row).
            try db.requireOne("SELECT InitSpatialMetadata(0, 'WGS84')", what: "initialise SpatiaLite metadata")
            try db.execute(
                sql: """
                    CREATE TABLE hunts (
                        id TEXT PRIMARY KEY,
                        position INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL,
                        difficulty TEXT NOT NULL,
                        bonus_points INTEGER NOT NULL,
                        ordered INTEGER NOT NULL,
                        timezone TEXT NOT NULL,
                        starts_at TEXT,
                        ends_at TEXT,
                        max_accuracy_m REAL NOT NULL,
                        max_photo_age_s REAL NOT NULL,
                        tolerance_m REAL NOT NULL,
                        image TEXT,
                        file TEXT NOT NULL
                    );
                    CREATE TABLE stops (
                        pk INTEGER PRIMARY KEY,
                        id TEXT NOT NULL UNIQUE,
                        hunt_id TEXT NOT NULL REFERENCES hunts(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL,
                        points INTEGER NOT NULL,
                        image TEXT,
                        area_m2 REAL NOT NULL,
                        geometry_json TEXT NOT NULL
                    );
                    CREATE INDEX stops_by_hunt ON stops(hunt_id, position);
                    CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    """)
            try db.requireOne(
                "SELECT AddGeometryColumn('stops', 'geom', 4326, 'MULTIPOLYGON', 'XY', 1)",
                what: "add the stops geometry column")
            try db.requireOne("SELECT CreateSpatialIndex('stops', 'geom')", what: "create the stops spatial index")
        }
        return migrator
    }
}
