internal import CSpatiaLite
import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Every hunt with its stops, from the synced rows: decoded once for a token of the
    /// definitions and kept (`HuntCache`), the token read on every call. (A check-in that names
    /// its hunt, as the web app's do, asks for it: reading and decoding it each time halved a
    /// server's check-ins a second.)
    public func hunts() async throws -> [StoredHunt] {
        if let kept = try keptHunts() { return kept }
        let (token, hunts) = try await read { db in
            (try Self.definitionsToken(db), try Self.loadHunts(db, id: nil))
        }
        if let token { huntCache.keep(stored: hunts, definitions: token) }
        return hunts
    }

    /// One hunt with its stops, or nil.
    public func hunt(id: String) async throws -> StoredHunt? {
        if let kept = try keptHunts() { return kept.first { $0.hunt.id == id } }
        let (token, hunts) = try await read { db in
            // With a token, every hunt is read to be kept (the next call finds them all).
            let token = try Self.definitionsToken(db)
            return (token, try Self.loadHunts(db, id: token == nil ? id : nil))
        }
        if let token { huntCache.keep(stored: hunts, definitions: token) }
        return hunts.first { $0.hunt.id == id }
    }

    /// The hunts kept for the definitions' current token, or nil (none kept, or no token).
    private func keptHunts() throws -> [StoredHunt]? {
        guard let token = try database.readStatementHere({ db in try Self.definitionsToken(db) }) else {
            return nil
        }
        return huntCache.stored(definitions: token)
    }

    /// The definitions' token and the hunt files' fingerprint (`sync_state`), or nil when the
    /// league has none (then nothing is kept). A sync or a publication changes it.
    static func definitionsToken(_ db: Database) throws -> String? {
        // The token and the files' fingerprint: a vsh from before tokens that syncs other files
        // changes the fingerprint, not the token.
        // One column, read through SQLite's C API (`RawStatement`), on every request: a row of two
        // columns built GRDB's table of their names for every read.
        try RawStatement(
            db,
            """
            SELECT (SELECT value FROM sync_state WHERE key = 'definitions') || '|'
                || coalesce((SELECT value FROM sync_state WHERE key = 'hunts'), '')
            """
        ).first([]) { $0.text(0) }
    }

    /// Every stop compiled into a `GeofenceIndex`: all the hunts' from the gathered stops the
    /// league keeps (`compiled_geofences`), else straight from the binary geofences (no `Stop`
    /// is built: opening 50,000 stops for a bulk lookup spent most of its time making and freeing
    /// them); through `hunts()` when a row has no valid binary form.
    public func compiledIndex(huntID: String?) async throws -> GeofenceIndex {
        if let direct = try await read({ db in try Self.compiledIndex(db, huntID: huntID) }) { return direct }
        return GeofenceIndex(
            stops: try await hunts().filter { huntID == nil || $0.hunt.id == huntID }.flatMap(\.hunt.stops))
    }

    /// The index of one hunt (or all) from the kept gathered stops (all hunts) or the binary
    /// geofences; nil when a row has no valid binary form.
    static func compiledIndex(_ db: Database, huntID: String?) throws -> GeofenceIndex? {
        if huntID == nil, let kept = try keptGeofences(db) { return GeofenceIndex(kept) }
        return try gatheredGeofences(db, huntID: huntID).map { GeofenceIndex($0) }
    }

    /// The gathered stops of every hunt as kept, or nil (none kept, or the bytes do not read).
    static func keptGeofences(_ db: Database) throws -> GeofenceIndex.Builder? {
        guard let rowID = try Int64.fetchOne(db, sql: "SELECT rowid FROM compiled_geofences LIMIT 1"),
            let handle = db.sqliteConnection
        else { return nil }
        // Read piece by piece into the index's arrays: a column's value (`sqlite3_column_blob`)
        // gathers the whole block from its pages into memory of its own first, a second copy
        // of megabytes (2 MB among 5,000 stops; a fifth of a one-fix `locate`'s page faults).
        var blob: OpaquePointer?
        defer { sqlite3_blob_close(blob) }
        // Not opened: as bytes that do not read, the stops are compiled again (and read as rows).
        guard sqlite3_blob_open(handle, "main", "compiled_geofences", "bytes", rowID, 0, &blob) == SQLITE_OK,
            let blob
        else { return nil }
        return GeofenceIndex.Builder(storedCount: Int(sqlite3_blob_bytes(blob))) { destination, offset in
            guard let base = destination.baseAddress else { return destination.isEmpty }
            guard let count = Int32(exactly: destination.count), let at = Int32(exactly: offset) else {
                return false
            }
            return sqlite3_blob_read(blob, base, count, at) == SQLITE_OK
        }
    }

    /// Keeps every hunt's stops gathered (`compiled_geofences`), in place of what was kept; keeps
    /// nothing when a stop has no valid binary form.
    static func keepCompiledGeofences(_ db: Database) throws {
        try db.execute(sql: "DELETE FROM compiled_geofences")
        guard let gathered = try gatheredGeofences(db, huntID: nil) else { return }
        try db.execute(
            sql: "INSERT INTO compiled_geofences(bytes) VALUES (?)", arguments: [Data(gathered.storedBytes())]
        )
    }

    /// The stops of one hunt (or all) gathered from their binary geofences in catalog order; nil
    /// when a row has no valid binary form.
    static func gatheredGeofences(_ db: Database, huntID: String?) throws -> GeofenceIndex.Builder? {
        let stops =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM stops WHERE ?1 IS NULL OR hunt_id = ?1", arguments: [huntID])
            ?? 0
        var builder = GeofenceIndex.Builder(expectedStops: stops)
        // Hunt by hunt, each one's stops through the (hunt_id, position) index: one query ordering
        // all 50,000 sorted them, blobs and all, in a temporary file.
        let hunts = try String.fetchAll(
            db, sql: "SELECT id FROM hunts WHERE ?1 IS NULL OR id = ?1 ORDER BY position", arguments: [huntID]
        )
        for hunt in hunts {
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, name, geometry_bin FROM stops WHERE hunt_id = ? ORDER BY position",
                arguments: [hunt])
            while let row = try rows.next() {
                let added = try row.withUnsafeData(atIndex: 2) { data in
                    data?.withUnsafeBytes {
                        builder.add(huntID: hunt, stopID: row[0], name: row[1], storedBytes: $0)
                    } ?? false
                }
                guard added else { return nil }
            }
        }
        return builder
    }

    static func loadHunts(_ db: Database, id: String?) throws -> [StoredHunt] {
        let huntRows = try HuntRow.fetchAll(
            db, sql: "SELECT * FROM hunts WHERE ?1 IS NULL OR id = ?1 ORDER BY position", arguments: [id])
        return try huntRows.map { row in
            var hunt = row.hunt
            var areas: [String: Double] = [:]
            // Columns by position: GRDB matches names case-insensitively, which showed in a profile of 50,000 stops.
            let stopRows = try Row.fetchCursor(
                db,
                sql:
                    "SELECT id, geometry_json, name, description, points, image, area_m2, featured, sponsor, geometry_bin, proof, translations, secrets FROM stops WHERE hunt_id = ? ORDER BY position",
                arguments: [hunt.id])
            while let stopRow = try stopRows.next() {
                let stopID: String = stopRow[0]
                // The binary form when the row has it (written by every sync since v17), else the text.
                let stored = try stopRow.withUnsafeData(atIndex: 9) { data in
                    data.flatMap { data in data.withUnsafeBytes { HuntFile.storedGeofence(bytes: $0) } }
                }
                let geofence: Geofence
                do {
                    if let stored {
                        geofence = stored
                    } else {
                        let geometryText: String = stopRow[1]
                        geofence =
                            try HuntFile.storedGeofence(geometryText)
                            ?? HuntFile.geofence(from: try JSONValue.parse(geometryText))
                    }
                } catch {
                    throw StoreError(
                        code: 11, message: "stop \(stopID) has a damaged geometry", path: db.description)
                }
                var stop = Stop(
                    id: stopID, huntID: hunt.id, name: stopRow[2], description: stopRow[3],
                    points: stopRow[4], image: stopRow[5], geofence: geofence, featured: stopRow[7],
                    sponsor: stopRow[8], proof: (stopRow[10] as String?).flatMap(StopProof.parse) ?? [])
                stop.translations = HuntFile.translations(stored: stopRow[11])
                StoredStopSecrets.apply(stopRow[12], to: &stop)
                hunt.stops.append(stop)
                areas[stopID] = stopRow[6]
            }
            return StoredHunt(hunt: hunt, file: row.file, stopAreas: areas)
        }
    }
}
