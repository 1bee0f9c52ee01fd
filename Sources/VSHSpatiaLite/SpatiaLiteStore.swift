public import Foundation
public import Synchronization
internal import GRDB
import VSHConfusables
public import VSHCore
import VSHHost

/// The SpatiaLite adapter: every store protocol of the core (`LeagueStore`) on one
/// SpatiaLite file, the default backend.
///
/// Stops live in `stops` with a SpatiaLite `MULTIPOLYGON` geometry column
/// (SRID 4326) and an R*Tree spatial index (`idx_stops_geom`); every lookup
/// goes through the index first and GEOS second. The file is an ordinary
/// SpatiaLite database: `ogrinfo`, QGIS and `spatialite` open it.
///
/// Connections: a GRDB `DatabasePool` in WAL mode, so reads run on their own
/// connections beside the one writer; every write is one IMMEDIATE transaction,
/// so check-ins from several processes are serialised. Async methods run on
/// GRDB's own queues, never blocking the caller's thread for the busy wait.
public final class SpatiaLiteStore: LeagueStore {
    /// The database file.
    public let path: String

    /// The database file's path.
    public var location: String { path }
    let database: SpatiaLiteDatabase
    /// GEOS validity and ellipsoidal areas, on this database's connections.
    public let inspector: SpatiaLiteInspector
    /// Committed check-ins' perceptual hashes, for near-copy questions.
    let perceptual: PerceptualIndex
    /// Hunts decoded for the rules, kept across transactions while the definitions stay the same.
    let huntCache = HuntCache()
    /// Sessions' last-use stamps not yet written (`session(tokenHash:at:)`), by token hash: the
    /// next check-in group writes them in its transaction, else `flushLastUseStamps` after
    /// `lastUseStampDelay`.
    let pendingStamps = Mutex<(stamps: [String: String], flushing: Bool)>(([:], false))
    /// How long a last-use stamp waits for a check-in group before it is written on its own: 1 s
    /// (tests make it long, to see a group write it).
    public let lastUseStampDelay = Mutex<Duration>(.seconds(1))
    /// The slots of the league's retry keys, read at start (`RetryKeySlots`).
    let retrySlots = RetryKeySlots()

    /// How long a writer waits for another process's transaction (`BusyTimeout`). Past it:
    /// `StoreError` code 5.
    public static var busyTimeoutSeconds: TimeInterval { BusyTimeout.seconds }

    /// How a store reaches its file.
    public enum Connections: Sendable {
        /// A pool: reader connections run beside the one writer (a server, concurrent tasks).
        case pool
        /// One connection for reads and writes: a short-lived process (a command) that does not
        /// read concurrently and so need not open and initialise a second connection.
        case single
        /// One read-only connection, for a file this process cannot write (read-only media, a
        /// file or folder of another user): nothing is migrated or written; the schema must be
        /// this version's.
        case readOnly
    }

    /// Opens (creating when needed) the database at `path` and brings its schema up to date.
    /// - Parameter connections: a pool (the default) or one connection.
    /// - Throws: `StoreError` (code 5 busy, 26 not a database, 14 cannot open).
    public init(path: String, connections: Connections = .pool) throws {
        self.path = path
        // A command's one connection gets SpatiaLite when its work first needs it (a check-in
        // or a lookup mostly does not: stops are decided on their stored binary geofences).
        database = try SpatiaLiteDatabase(
            path: path, busyTimeout: Self.busyTimeoutSeconds, pooled: connections == .pool,
            readOnly: connections == .readOnly, onDemand: connections != .pool)
        inspector = SpatiaLiteInspector(database: database)
        perceptual = PerceptualIndex()
        if connections == .readOnly {
            let current = try database.run { writer in
                try writer.read { try Self.migrator.hasCompletedMigrations($0) }
            }
            guard current else {
                throw StoreError(
                    code: 8,
                    message:
                        "the database is read-only here and was made by an older vsh (open it once where "
                        + "it can be written to bring it up to date)", path: path)
            }
        } else {
            try database.run { writer in
                // The migrations are spatial SQL (a new league's metadata, its spatial index).
                try writer.writeWithoutTransaction { db in
                    if try !Self.migrator.hasCompletedMigrations(db) {
                        try SpatiaLiteDatabase.attachSpatiaLite(db)
                    }
                }
                try Self.migrator.migrate(writer)
            }
        }
        // A server reads the retry keys' slots now; a command, when it first looks a key up.
        if connections == .pool {
            let slots = retrySlots
            try database.run { writer in try writer.read { try slots.load($0) } }
        }
    }

    /// Reads on a reader connection, turning GRDB errors into `StoreError`s that name the file.
    func read<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.read(work)
    }

    /// Writes in one IMMEDIATE transaction, turning GRDB errors into `StoreError`s.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.write(work)
    }

    /// Schema history; each step runs once, in its own transaction.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-geofences") { db in
            // Inside the migration's transaction: 0 = no transaction of its own (and fast; without any
            // transaction it takes over 40 s, one autocommit per spatial_ref_sys row).
            try db.requireOne(
                "SELECT InitSpatialMetadata(0, 'WGS84')", what: "initialise SpatiaLite metadata")
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
            try db.requireOne(
                "SELECT CreateSpatialIndex('stops', 'geom')", what: "create the stops spatial index")
        }
        migrator.registerMigration("v2-players-checkins") { db in
            // The audit trail: check-ins and moderators' decisions are append-only
            // (triggers refuse UPDATE and DELETE); a check-in's state is its
            // verdict unless a later review decided otherwise.
            try db.execute(
                sql: """
                    CREATE TABLE players (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL,
                        name_key TEXT NOT NULL UNIQUE,
                        email TEXT,
                        created_at TEXT NOT NULL
                    );
                    CREATE TABLE checkins (
                        id INTEGER PRIMARY KEY,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        received_at TEXT NOT NULL,
                        source TEXT NOT NULL CHECK (source IN ('photo', 'device', 'replay')),
                        photo_file TEXT,
                        photo_sha256 TEXT,
                        image_sha256 TEXT,
                        lat REAL,
                        lon REAL,
                        accuracy_m REAL,
                        fix_time TEXT,
                        fix_epoch REAL,
                        hunt_id TEXT,
                        stop_id TEXT,
                        verdict TEXT NOT NULL CHECK (verdict IN ('accepted', 'rejected', 'pending')),
                        points INTEGER NOT NULL,
                        rules TEXT NOT NULL
                    );
                    CREATE INDEX checkins_by_image ON checkins(image_sha256) WHERE image_sha256 IS NOT NULL;
                    CREATE INDEX checkins_by_player ON checkins(player_id, fix_epoch);
                    CREATE INDEX checkins_by_verdict ON checkins(verdict);
                    CREATE TABLE reviews (
                        id INTEGER PRIMARY KEY,
                        checkin_id INTEGER NOT NULL REFERENCES checkins(id),
                        decision TEXT NOT NULL CHECK (decision IN ('approved', 'rejected', 'revoked')),
                        reason TEXT NOT NULL,
                        moderator TEXT NOT NULL,
                        decided_at TEXT NOT NULL
                    );
                    CREATE INDEX reviews_by_checkin ON reviews(checkin_id, id);
                    CREATE TRIGGER checkins_no_update BEFORE UPDATE ON checkins
                        BEGIN SELECT RAISE(ABORT, 'check-ins are append-only'); END;
                    CREATE TRIGGER checkins_no_delete BEFORE DELETE ON checkins
                        BEGIN SELECT RAISE(ABORT, 'check-ins are append-only'); END;
                    CREATE TRIGGER reviews_no_update BEFORE UPDATE ON reviews
                        BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;
                    CREATE TRIGGER reviews_no_delete BEFORE DELETE ON reviews
                        BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;
                    CREATE VIEW checkin_state AS
                        SELECT c.*,
                            CASE (SELECT r.decision FROM reviews r WHERE r.checkin_id = c.id ORDER BY r.id DESC LIMIT 1)
                                WHEN 'approved' THEN 'accepted'
                                WHEN 'rejected' THEN 'rejected'
                                WHEN 'revoked' THEN 'revoked'
                                ELSE c.verdict
                            END AS state
                        FROM checkins c;
                    """)
        }
        migrator.registerMigration("v3-scores") { db in
            // Badges as defined in badges.json, and what every player earned: derived
            // from accepted check-ins (recomputed per player whenever they change).
            try db.execute(
                sql: """
                    CREATE TABLE badges (
                        id TEXT PRIMARY KEY,
                        position INTEGER NOT NULL,
                        name TEXT NOT NULL,
                        description TEXT NOT NULL,
                        points INTEGER NOT NULL,
                        rule TEXT NOT NULL
                    );
                    CREATE TABLE score_events (
                        id INTEGER PRIMARY KEY,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        kind TEXT NOT NULL CHECK (kind IN ('stop', 'bonus', 'badge')),
                        hunt_id TEXT NOT NULL,
                        stop_id TEXT,
                        badge_id TEXT,
                        points INTEGER NOT NULL,
                        at TEXT NOT NULL,
                        at_epoch REAL NOT NULL,
                        checkin_id INTEGER NOT NULL
                    );
                    CREATE INDEX score_events_by_player ON score_events(player_id, at_epoch);
                    CREATE INDEX score_events_by_time ON score_events(at_epoch);
                    """)
        }
        migrator.registerMigration("v4-score-indexes") { db in
            // A profile sums points per check-in; the leaderboard groups by player
            // and filters by hunt and time: a covering index answers it without the table.
            try db.execute(
                sql: """
                    CREATE INDEX score_events_by_checkin ON score_events(checkin_id);
                    CREATE INDEX score_events_totals ON score_events(player_id, hunt_id, at_epoch, kind, points);
                    """)
        }
        migrator.registerMigration("v5-player-scores") { db in
            // Each player's running totals, rewritten with their score events (`rescore`), so the
            // all-time leaderboard reads one row a player instead of grouping every event.
            try db.execute(
                sql: """
                    CREATE TABLE player_scores (
                        player_id INTEGER PRIMARY KEY REFERENCES players(id),
                        points INTEGER NOT NULL,
                        hunts INTEGER NOT NULL,
                        stops INTEGER NOT NULL,
                        badges INTEGER NOT NULL,
                        reached REAL NOT NULL
                    );
                    INSERT INTO player_scores
                        SELECT player_id, SUM(points), SUM(kind = 'bonus'), SUM(kind = 'stop'), SUM(kind = 'badge'), MAX(at_epoch)
                        FROM score_events GROUP BY player_id;
                    CREATE INDEX player_scores_rank ON player_scores(points DESC, reached ASC);
                    """)
        }
        migrator.registerMigration("v6-accounts") { db in
            // Accounts for the service: a bcrypt hash (never the password) and a role per player;
            // sessions kept as the SHA-256 of their tokens, so the file lets no one sign in.
            try db.execute(
                sql: """
                    ALTER TABLE players ADD COLUMN password_hash TEXT;
                    ALTER TABLE players ADD COLUMN role TEXT NOT NULL DEFAULT 'player'
                        CHECK (role IN ('player', 'moderator'));
                    CREATE TABLE sessions (
                        token_hash TEXT PRIMARY KEY,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        created_at TEXT NOT NULL,
                        expires_at REAL NOT NULL,
                        last_used_at TEXT NOT NULL
                    );
                    CREATE INDEX sessions_by_player ON sessions(player_id);
                    """)
        }
        migrator.registerMigration("v7-service") { db in
            // Retry keys (`Idempotency-Key`): the first answer, kept with the check-in it recorded.
            // Password resets: single-use tokens kept as SHA-256 hashes. Avatars: a photo-store key.
            try db.execute(
                sql: """
                    CREATE TABLE idempotency_keys (
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        key TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        checkin_id INTEGER NOT NULL REFERENCES checkins(id),
                        answer TEXT NOT NULL,
                        PRIMARY KEY (player_id, key)
                    ) WITHOUT ROWID;
                    CREATE TABLE password_resets (
                        token_hash TEXT PRIMARY KEY,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        created_at TEXT NOT NULL,
                        expires_at REAL NOT NULL,
                        used_at TEXT
                    );
                    CREATE INDEX password_resets_by_player ON password_resets(player_id);
                    ALTER TABLE players ADD COLUMN avatar_file TEXT;
                    """)
        }
        migrator.registerMigration("v8-live-checkins") { db in
            // Only a check-in whose verdict was accepted or pending can be accepted now (a moderator
            // approves pending ones and revokes accepted ones): the rules' history questions read
            // this index and skip a player's rejected submissions, however many they sent.
            try db.execute(
                sql: """
                    CREATE INDEX checkins_live_by_player ON checkins(player_id, fix_epoch)
                        WHERE verdict IN ('accepted', 'pending');
                    """)
        }
        migrator.registerMigration("v9-featured-stops") { db in
            try db.execute(
                sql: """
                    ALTER TABLE stops ADD COLUMN featured INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE stops ADD COLUMN sponsor TEXT;
                    """)
        }
        migrator.registerMigration("v10-fix-age") { db in
            // How old a device fix may be when it arrives before a moderator must look (the web
            // app's offline check-ins arrive late); existing hunts get the default until re-synced.
            try db.execute(sql: "ALTER TABLE hunts ADD COLUMN max_fix_age_s REAL NOT NULL DEFAULT 120")
        }
        migrator.registerMigration("v11-name-keys") { db in
            // Names in NFC, unique by their NFKC case-folded key (they were unique by lowercased()).
            let players = try Row.fetchAll(db, sql: "SELECT id, name FROM players").map {
                (id: $0["id"] as Int64, name: $0["name"] as String)
            }
            try db.execute(sql: "UPDATE players SET name_key = char(1) || id")
            for player in PlayerName.rekeyed(players) {
                try db.execute(
                    sql: "UPDATE players SET name = ?, name_key = ? WHERE id = ?",
                    arguments: [player.name, player.key, player.id])
            }
        }
        migrator.registerMigration("v12-photo-pixels") { db in
            // unique_photo by decoded pixels: their SHA-256 (exact copies stored differently) and a
            // 64-bit perceptual hash (near copies). Photos recorded before keep only image_sha256.
            try db.execute(
                sql: """
                    ALTER TABLE checkins ADD COLUMN pixel_sha256 TEXT;
                    ALTER TABLE checkins ADD COLUMN phash INTEGER;
                    CREATE INDEX checkins_by_pixels ON checkins(pixel_sha256) WHERE pixel_sha256 IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v13-late-grace-and-proof") { db in
            // How long after its end a hunt still takes check-ins that arrive late, and whether it
            // asks for a photo; existing hunts get the defaults until re-synced.
            try db.execute(
                sql: """
                    ALTER TABLE hunts ADD COLUMN late_grace_s REAL NOT NULL DEFAULT 0;
                    ALTER TABLE hunts ADD COLUMN proof TEXT NOT NULL DEFAULT 'any';
                    """)
        }
        migrator.registerMigration("v14-clock") { db in
            // The time badges of the hour and the day go by: GPS or device time, else the received
            // time, never a camera clock. Check-ins recorded before keep their fix time (NULL).
            try db.execute(sql: "ALTER TABLE checkins ADD COLUMN clock_epoch REAL")
        }
        migrator.registerMigration("v15-overturns") { db in
            // A moderator overturning a rejection records its evidence again as a new check-in
            // that names the rejected one (check-ins are append-only); once per rejection.
            try db.execute(
                sql: """
                    ALTER TABLE checkins ADD COLUMN overturns INTEGER REFERENCES checkins(id);
                    CREATE UNIQUE INDEX checkins_by_overturns ON checkins(overturns) WHERE overturns IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v16-covering-live-checkins") { db in
            // What scoring and first visits read of a player's live check-ins, in the index itself:
            // a player with thousands of check-ins is rescored from the index without a table row
            // each (a check-in by one with 7,500 took 12 ms less).
            try db.execute(
                sql: """
                    DROP INDEX checkins_live_by_player;
                    CREATE INDEX checkins_live_by_player ON checkins(player_id, fix_epoch, hunt_id, stop_id, clock_epoch, verdict)
                        WHERE verdict IN ('accepted', 'pending');
                    """)
        }
        migrator.registerMigration("v17-binary-geometry") { db in
            // Each stop's geofence in a compact binary form beside its GeoJSON text, which bulk
            // lookups read back (`HuntFile.storedBytes`): no decimal numbers to parse.
            try db.execute(sql: "ALTER TABLE stops ADD COLUMN geometry_bin BLOB")
            let rows = try Row.fetchAll(db, sql: "SELECT pk, geometry_json FROM stops")
            for row in rows {
                let text: String = row[1]
                guard
                    let geofence = HuntFile.storedGeofence(text)
                        ?? (try? JSONValue.parse(text)).flatMap({ try? HuntFile.geofence(from: $0) })
                else { continue }  // a damaged row keeps its text: reading it says so, as before
                try db.execute(
                    sql: "UPDATE stops SET geometry_bin = ? WHERE pk = ?",
                    arguments: [Data(HuntFile.storedBytes(geofence)), row[0] as Int64])
            }
        }
        migrator.registerMigration("v18-checks-without-in-lists") { db in
            // SQLite evaluates `x IN ('a', 'b', 'c')` (three or more constants) in a CHECK by building
            // a temporary table at every insert: a third of inserting a check-in, under a server's
            // load. The same constraints as comparisons, changed in place as SQLite documents for
            // CHECK constraints (writable_schema, then a new schema version): every row already
            // satisfies them, the table is not rebuilt. A table whose text differs is left as it is.
            let rewrites: [(table: String, column: String, values: [String])] = [
                ("checkins", "source", ["photo", "device", "replay"]),
                ("checkins", "verdict", ["accepted", "rejected", "pending"]),
                ("score_events", "kind", ["stop", "bonus", "badge"]),
                ("reviews", "decision", ["approved", "rejected", "revoked"]),
            ]
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            for rewrite in rewrites {
                let list = rewrite.values.map { "'\($0)'" }.joined(separator: ", ")
                let comparisons = rewrite.values.map { "\(rewrite.column) = '\($0)'" }.joined(
                    separator: " OR ")
                try db.execute(
                    sql:
                        "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
                    arguments: [
                        "CHECK (\(rewrite.column) IN (\(list)))", "CHECK (\(comparisons))", rewrite.table,
                    ])
            }
            try db.execute(sql: "PRAGMA writable_schema = OFF")
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            // A token for the definitions as they are (a sync makes a new one), so that a server on a
            // league synced before tokens keeps its hunts decoded too (`HuntCache`).
            try db.execute(
                sql: "INSERT OR IGNORE INTO sync_state(key, value) VALUES ('definitions', ?)",
                arguments: [UUID().uuidString])
            guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else {
                throw StoreError(
                    code: 11, message: "the schema's CHECK constraints could not be rewritten", path: "")
            }
        }
        migrator.registerMigration("v19-pace-and-stop-proof") { db in
            // How fast a hunt's players may travel, the least time a whole hunt takes, and a stop's
            // own proof. The stored fingerprint of the hunt files is forgotten, so that the next sync
            // reads them again even when they did not change: a file that names its pace gets it.
            try db.execute(
                sql: """
                    ALTER TABLE hunts ADD COLUMN max_speed_kmh REAL NOT NULL DEFAULT 12;
                    ALTER TABLE hunts ADD COLUMN min_duration_s REAL;
                    ALTER TABLE stops ADD COLUMN proof TEXT;
                    DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat');
                    """)
        }
        migrator.registerMigration("v20-lookalike-names") { db in
            // Each name's confusable skeleton (Unicode TR 39), so that "AIice" cannot register
            // beside "Alice". Not unique: names registered before may already look alike.
            try db.execute(
                sql: """
                    ALTER TABLE players ADD COLUMN name_lookalike TEXT;
                    CREATE INDEX players_by_lookalike ON players(name_lookalike);
                    """)
            let players = try Row.fetchAll(db, sql: "SELECT id, name FROM players")
            for player in players {
                try db.execute(
                    sql: "UPDATE players SET name_lookalike = ? WHERE id = ?",
                    arguments: [PlayerName.lookalikeKey(player[1]), player[0] as Int64])
            }
        }
        migrator.registerMigration("v21-translations") { db in
            // Hunts' and stops' names and descriptions in other languages (JSON text); the hunt
            // files are read again at the next sync.
            try db.execute(
                sql: """
                    ALTER TABLE hunts ADD COLUMN translations TEXT;
                    ALTER TABLE stops ADD COLUMN translations TEXT;
                    DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat');
                    """)
        }
        migrator.registerMigration("v22-organisers") { db in
            // A third role. The CHECK is changed in place as v18 changed its own (writable_schema,
            // then a new schema version): every row already satisfies the wider constraint.
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(
                sql:
                    "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'players'",
                arguments: [
                    "CHECK (role IN ('player', 'moderator'))",
                    "CHECK (role = 'player' OR role = 'moderator' OR role = 'organiser')",
                ])
            try db.execute(sql: "PRAGMA writable_schema = OFF")
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            let table =
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'players'") ?? ""
            guard table.contains("'organiser'"), try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok"
            else {
                throw StoreError(
                    code: 11, message: "the players' role constraint could not be widened", path: "")
            }
        }
        migrator.registerMigration("v23-published-files") { db in
            // The hunt files and badges.json as synced, for `vsh hunts export`. The stored
            // fingerprint goes, so that the next sync keeps the files of the definitions it loads.
            try db.execute(
                sql: """
                    CREATE TABLE published_files (name TEXT PRIMARY KEY, content BLOB NOT NULL);
                    DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat');
                    """)
        }
        migrator.registerMigration("v24-hunt-revisions") { db in
            // Hunts as published revisions (who, when, from the console or files) and at most one
            // draft each; each check-in keeps the revision of its hunt it was judged under.
            try db.execute(
                sql: """
                    CREATE TABLE hunt_revisions (
                        hunt_id TEXT NOT NULL,
                        revision INTEGER NOT NULL,
                        published_at TEXT NOT NULL,
                        published_by TEXT,
                        source TEXT NOT NULL CHECK (source IN ('console', 'files')),
                        content BLOB NOT NULL,
                        PRIMARY KEY (hunt_id, revision)
                    );
                    CREATE TABLE hunt_drafts (
                        hunt_id TEXT PRIMARY KEY,
                        content BLOB NOT NULL,
                        saved_at TEXT NOT NULL,
                        saved_by TEXT
                    );
                    ALTER TABLE hunts ADD COLUMN revision INTEGER;
                    ALTER TABLE checkins ADD COLUMN hunt_revision INTEGER;
                    """)
        }
        migrator.registerMigration("v25-private-hunts") { db in
            // Private hunts and the players who joined them. A membership names its hunt by id
            // only: a publication writes the hunts' rows again, and the players stay joined.
            try db.execute(
                sql: """
                    ALTER TABLE hunts ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public';
                    ALTER TABLE hunts ADD COLUMN join_code TEXT;
                    CREATE TABLE hunt_members (
                        hunt_id TEXT NOT NULL,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        joined_at TEXT NOT NULL,
                        PRIMARY KEY (hunt_id, player_id)
                    );
                    CREATE INDEX hunt_members_by_player ON hunt_members(player_id);
                    """)
        }
        migrator.registerMigration("v26-announcements") { db in
            try db.execute(
                sql: """
                    CREATE TABLE announcements (
                        id INTEGER PRIMARY KEY,
                        hunt_id TEXT,
                        text TEXT NOT NULL,
                        by_name TEXT NOT NULL,
                        at TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v27-banned-players") { db in
            try db.execute(sql: "ALTER TABLE players ADD COLUMN banned INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v28-teams") { db in
            // Teams of a hunt, their members (one team a hunt for each player), and the team each
            // check-in counted for, fixed when it is recorded.
            try db.execute(
                sql: """
                    ALTER TABLE hunts ADD COLUMN play TEXT NOT NULL DEFAULT 'solo';
                    ALTER TABLE hunts ADD COLUMN max_team_size INTEGER;
                    CREATE TABLE teams (
                        id INTEGER PRIMARY KEY,
                        hunt_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        name_key TEXT NOT NULL,
                        join_code TEXT NOT NULL UNIQUE,
                        created_at TEXT NOT NULL,
                        UNIQUE (hunt_id, name_key)
                    );
                    CREATE TABLE team_members (
                        team_id INTEGER NOT NULL REFERENCES teams(id),
                        hunt_id TEXT NOT NULL,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        joined_at TEXT NOT NULL,
                        PRIMARY KEY (hunt_id, player_id)
                    );
                    CREATE INDEX team_members_by_team ON team_members(team_id);
                    ALTER TABLE checkins ADD COLUMN team_id INTEGER;
                    CREATE INDEX checkins_by_team ON checkins(team_id) WHERE team_id IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v29-adjustments") { db in
            // Organisers' bonuses and penalties: append-only, as the check-ins and reviews are.
            try db.execute(
                sql: """
                    CREATE TABLE adjustments (
                        id INTEGER PRIMARY KEY,
                        player_id INTEGER REFERENCES players(id),
                        team_id INTEGER REFERENCES teams(id),
                        hunt_id TEXT,
                        points INTEGER NOT NULL,
                        reason TEXT NOT NULL,
                        by_name TEXT NOT NULL,
                        at TEXT NOT NULL,
                        at_epoch REAL NOT NULL,
                        CHECK ((player_id IS NULL) <> (team_id IS NULL))
                    );
                    CREATE INDEX adjustments_by_player ON adjustments(player_id) WHERE player_id IS NOT NULL;
                    CREATE INDEX adjustments_by_team ON adjustments(team_id) WHERE team_id IS NOT NULL;
                    CREATE TRIGGER adjustments_no_update BEFORE UPDATE ON adjustments
                        BEGIN SELECT RAISE(ABORT, 'adjustments are append-only'); END;
                    CREATE TRIGGER adjustments_no_delete BEFORE DELETE ON adjustments
                        BEGIN SELECT RAISE(ABORT, 'adjustments are append-only'); END;
                    """)
        }
        migrator.registerMigration("v30-featured-photos") { db in
            // The photos moderators put on the projector (a flag they turn on and off).
            try db.execute(
                sql: """
                    CREATE TABLE featured_photos (
                        checkin_id INTEGER PRIMARY KEY REFERENCES checkins(id),
                        by_name TEXT NOT NULL,
                        at TEXT NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v31-erased-players") { db in
            try db.execute(sql: "ALTER TABLE players ADD COLUMN erased INTEGER NOT NULL DEFAULT 0")
        }
        migrator.registerMigration("v32-positions") { db in
            // Players' last positions for the organisers' map of a hunt that shares them (one a
            // player a hunt); the hunt files are read again for their new field.
            try db.execute(
                sql: """
                    ALTER TABLE hunts ADD COLUMN share_positions INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE positions (
                        hunt_id TEXT NOT NULL,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        lat REAL NOT NULL,
                        lon REAL NOT NULL,
                        accuracy_m REAL NOT NULL,
                        at TEXT NOT NULL,
                        at_epoch REAL NOT NULL,
                        PRIMARY KEY (hunt_id, player_id)
                    );
                    DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat');
                    """)
        }
        migrator.registerMigration("v33-stop-secrets") { db in
            // Stops' printed codes and rotating-code secrets (JSON, `StoredStopSecrets`); the hunt
            // files are read again for their new fields.
            try db.execute(
                sql: """
                    ALTER TABLE stops ADD COLUMN secrets TEXT;
                    DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat');
                    """)
        }
        migrator.registerMigration("v34-answers") { db in
            // Whether a check-in's answer to its stop's question was right (1), wrong (0) or not
            // judged (NULL): tries are counted and answer points scored from it. Score events gain
            // the kind `answer`: the CHECK constraint is widened in place, as v18 did.
            // Scoring reads it with the rest of a player's live check-ins, from the index alone.
            try db.execute(
                sql: """
                    ALTER TABLE checkins ADD COLUMN answer_right INTEGER;
                    DROP INDEX checkins_live_by_player;
                    CREATE INDEX checkins_live_by_player ON checkins(player_id, fix_epoch, hunt_id, stop_id, clock_epoch, verdict, answer_right)
                        WHERE verdict IN ('accepted', 'pending');
                    """)
            let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(
                sql:
                    "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = 'score_events'",
                arguments: ["kind = 'badge')", "kind = 'badge' OR kind = 'answer')"])
            try db.execute(sql: "PRAGMA writable_schema = OFF")
            try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
            guard try String.fetchOne(db, sql: "PRAGMA quick_check") == "ok" else {
                throw StoreError(
                    code: 11, message: "the schema's CHECK constraints could not be rewritten", path: "")
            }
        }
        migrator.registerMigration("v35-hunt-scores") { db in
            // Each player's running totals in each hunt, written with their score events as
            // `player_scores` is: a hunt's board reads its top rows through an index instead of
            // grouping the hunt's events (0.3 s for 100,000 players).
            try db.execute(
                sql: """
                    CREATE TABLE hunt_scores (
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        hunt_id TEXT NOT NULL,
                        points INTEGER NOT NULL,
                        hunts INTEGER NOT NULL,
                        stops INTEGER NOT NULL,
                        badges INTEGER NOT NULL,
                        reached REAL NOT NULL,
                        PRIMARY KEY (player_id, hunt_id)
                    ) WITHOUT ROWID;
                    INSERT INTO hunt_scores
                        SELECT player_id, hunt_id, SUM(points), SUM(kind = 'bonus'), SUM(kind = 'stop'), SUM(kind = 'badge'), MAX(at_epoch)
                        FROM score_events GROUP BY player_id, hunt_id;
                    CREATE INDEX hunt_scores_rank ON hunt_scores(hunt_id, points DESC, reached ASC);
                    """)
        }
        migrator.registerMigration("v36-team-scores") { db in
            // Each team's running totals (`TeamBoard.totals`), written with its members' score
            // events: a team board reads them instead of scoring every team of the hunt (3 s for
            // 20,000 teams). Scored in Swift, as the check-in path scores them.
            try db.execute(
                sql: """
                    CREATE TABLE team_scores (
                        team_id INTEGER PRIMARY KEY REFERENCES teams(id),
                        hunt_id TEXT NOT NULL,
                        points INTEGER NOT NULL,
                        stops INTEGER NOT NULL,
                        completed INTEGER NOT NULL,
                        badges TEXT NOT NULL,
                        reached REAL NOT NULL
                    );
                    """)
            try SpatiaLiteStore.rescoreAllTeams(db)
        }
        migrator.registerMigration("v37-idempotency-rowid") { db in
            // Retry keys in a rowid table, their (player, key) in an index: a key's row holds the
            // whole answer (about 1.4 KB), which a WITHOUT ROWID table's page takes only up to
            // about 1 KB of, so every key spilled into an overflow page of its own (131 MB for
            // 28,000 keys) and every check-in wrote two pages at a random place. Now rows are
            // appended, a few to a page, and the index holds only the keys.
            try db.execute(
                sql: """
                    CREATE TABLE idempotency_keys_rowid (
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        key TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        checkin_id INTEGER NOT NULL REFERENCES checkins(id),
                        answer TEXT NOT NULL,
                        UNIQUE (player_id, key)
                    );
                    INSERT INTO idempotency_keys_rowid(player_id, key, fingerprint, checkin_id, answer)
                        SELECT player_id, key, fingerprint, checkin_id, answer FROM idempotency_keys
                        ORDER BY checkin_id;
                    DROP TABLE idempotency_keys;
                    ALTER TABLE idempotency_keys_rowid RENAME TO idempotency_keys;
                    """)
        }
        migrator.registerMigration("v38-photo-uses-by-player") { db in
            // A photo's uses by one player in one probe (`photoUses`): the picture's own and its
            // pixels' index keyed by the player too. A picture many players sent (a photo of a
            // landmark taken from the web) had every one of its uses read, and each use's state
            // worked out, at every check-in with it.
            try db.execute(
                sql: """
                    DROP INDEX checkins_by_image;
                    DROP INDEX checkins_by_pixels;
                    CREATE INDEX checkins_by_image ON checkins(image_sha256, player_id) WHERE image_sha256 IS NOT NULL;
                    CREATE INDEX checkins_by_pixels ON checkins(pixel_sha256, player_id) WHERE pixel_sha256 IS NOT NULL;
                    """)
        }
        migrator.registerMigration("v39-compiled-geofences") { db in
            // Every stop's geofence gathered for bulk lookups (`GeofenceIndex.Builder.storedBytes`),
            // kept in one row: `vsh locate --fixes` reads it instead of compiling 5,000 stops
            // again (a third of its run). A change to what it holds removes it; a sync writes it
            // again (`replaceDefinitions`), and until then the stops are compiled as before.
            try db.execute(
                sql: """
                    CREATE TABLE compiled_geofences(bytes BLOB NOT NULL);
                    CREATE TRIGGER compiled_geofences_stop_added AFTER INSERT ON stops
                        BEGIN DELETE FROM compiled_geofences; END;
                    CREATE TRIGGER compiled_geofences_stop_removed AFTER DELETE ON stops
                        BEGIN DELETE FROM compiled_geofences; END;
                    CREATE TRIGGER compiled_geofences_stop_changed
                        AFTER UPDATE OF id, hunt_id, position, name, geometry_bin ON stops
                        BEGIN DELETE FROM compiled_geofences; END;
                    CREATE TRIGGER compiled_geofences_hunt_added AFTER INSERT ON hunts
                        BEGIN DELETE FROM compiled_geofences; END;
                    CREATE TRIGGER compiled_geofences_hunt_removed AFTER DELETE ON hunts
                        BEGIN DELETE FROM compiled_geofences; END;
                    CREATE TRIGGER compiled_geofences_hunt_changed AFTER UPDATE OF id, position ON hunts
                        BEGIN DELETE FROM compiled_geofences; END;
                    """)
            try Self.keepCompiledGeofences(db)
        }
        migrator.registerMigration("v40-idempotency-slots") { db in
            // Retry keys without an index, found through slots the server holds in memory
            // (`RetryKeySlots`): the index by player and key wrote a leaf at a random place for
            // every check-in, about a third of the pages a check-in wrote.
            try db.execute(
                sql: """
                    CREATE TABLE idempotency_keys_unindexed (
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        key TEXT NOT NULL,
                        fingerprint TEXT NOT NULL,
                        checkin_id INTEGER NOT NULL REFERENCES checkins(id),
                        answer TEXT NOT NULL
                    );
                    INSERT INTO idempotency_keys_unindexed(rowid, player_id, key, fingerprint, checkin_id, answer)
                        SELECT rowid, player_id, key, fingerprint, checkin_id, answer FROM idempotency_keys
                        ORDER BY rowid;
                    DROP TABLE idempotency_keys;
                    ALTER TABLE idempotency_keys_unindexed RENAME TO idempotency_keys;
                    CREATE TABLE idempotency_slots (
                        slot INTEGER NOT NULL,
                        player_id INTEGER NOT NULL REFERENCES players(id),
                        key_id INTEGER NOT NULL
                    );
                    """)
            try RetryKeySlots.fill(db)
        }
        migrator.registerMigration("v41-live-by-clock") { db in
            // A player's live check-ins by the clock that badges of days in a row count on
            // (`checkInsInClockWindow`), as in PostgreSQL's index of the same name: a question
            // about earlier days read every live check-in of the player through
            // `checkins_live_by_player`, which is in fix-time order, and worked out each one's state.
            try db.execute(
                sql: """
                    CREATE INDEX checkins_live_by_clock ON checkins(player_id, coalesce(clock_epoch, fix_epoch))
                        WHERE verdict IN ('accepted', 'pending');
                    """)
        }
        migrator.registerMigration("v42-answers-without-rules") { db in
            // A retry key's answer kept without the rules its check-in's row holds (`RulesInAnswer`):
            // they were a third of the bytes a device-fix check-in added. Answers kept before stay whole.
            try db.execute(sql: "ALTER TABLE idempotency_keys ADD COLUMN rules_at INTEGER")
        }
        return migrator
    }
}

extension SpatiaLiteStore {
    /// The writer connection's `PRAGMA synchronous`: 2 (FULL) for a file, so that every commit is
    /// on disk when it returns. For tests and diagnostics.
    public func synchronousMode() async throws -> Int {
        try await database.writeWithoutTransaction { try Int.fetchOne($0, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Runs raw SQL: for tests that check the database's own guards (the
    /// append-only triggers). Not for application code, which goes through the typed methods.
    public func executeForTesting(_ sql: String) async throws {
        try await write { try $0.execute(sql: sql) }
    }
}
