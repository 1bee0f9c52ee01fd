import Foundation
internal import GRDB
public import VSHCore
import VSHGeodesy
import VSHHost

extension SpatiaLiteStore {
    /// A fingerprint of a set of hunt files (`HuntCatalog.fingerprint`).
    static func fingerprint(_ sources: [HuntCatalog.Source], badges: HuntCatalog.Source?) -> String {
        HuntCatalog.fingerprint(sources, badges: badges)
    }

    /// Syncs the hunt files and `badges.json` of a folder (`HuntStore.publishFiles`). When every
    /// file has the name, size, modification time and inode of the last sync, nothing is read (a
    /// 60 MB folder of 50,000 stops was hashed at every command).
    @discardableResult
    public func sync(directory: String, force: Bool) async throws -> SyncOutcome {
        let signature = HuntSources.statSignature(directory: directory)
        if let signature, !force {
            // Both values in one read (each read is a trip to the connection's queue).
            let stored: [String: String] = try await read { db in
                var values: [String: String] = [:]
                let sql = "SELECT key, value FROM sync_state WHERE key IN ('hunts-stat', 'hunts')"
                for row in try Row.fetchAll(db, sql: sql) { values[row[0]] = row[1] as String? }
                return values
            }
            if stored["hunts-stat"] == signature, stored["hunts"] != nil { return .unchanged }
        }
        let sources = try HuntSources.read(directory: directory)
        let badges = try HuntSources.readBadges(directory: directory)
        let (outcome, fingerprint) = try await publishFiles(sources, badges: badges, force: force, at: Date())
        if let signature {
            // Only while the published set is still the one this folder gave (another process may
            // have published since).
            try await write { db in
                try db.execute(
                    sql: """
                        INSERT INTO sync_state(key, value)
                        SELECT 'hunts-stat', ? WHERE (SELECT value FROM sync_state WHERE key = 'hunts') = ?
                        ON CONFLICT(key) DO UPDATE SET value = excluded.value
                        """,
                    arguments: [signature, fingerprint])
            }
        }
        return outcome
    }

    func storedValue(_ key: String) async throws -> String? {
        try await read {
            try String.fetchOne($0, sql: "SELECT value FROM sync_state WHERE key = ?", arguments: [key])
        }
    }

    /// The fingerprint of the published files (`HuntStore.publishedFingerprint`).
    public func publishedFingerprint() async throws -> String? { try await storedValue("hunts") }

    /// Publishes (`HuntStore.publish`): all files are validated first (GEOS validity and
    /// ellipsoidal area through this database's SpatiaLite); only when every one is valid are the
    /// definitions replaced, in one IMMEDIATE transaction. A bad file leaves the last good
    /// definitions in place and throws `HuntFileErrors` listing every problem.
    @discardableResult
    public func publish(_ publication: Publication) async throws -> SyncOutcome {
        let catalog = try HuntCatalog.build(
            publication.sources, badges: publication.badges, inspector: inspector
        )
        .get()
        let files = Dictionary(publication.sources.map { ($0.expectedID, $0.path) }) { a, _ in a }
        let fingerprint = publication.fingerprint
        try await write { db in
            let stored = try String.fetchOne(db, sql: "SELECT value FROM sync_state WHERE key = 'hunts'")
            if stored == fingerprint && publication.revisions.isEmpty {
                for id in publication.publishedDrafts {
                    try db.execute(sql: "DELETE FROM hunt_drafts WHERE hunt_id = ?", arguments: [id])
                }
                return
            }
            guard stored == publication.basedOn else { throw PublicationRace() }
            try Self.replaceDefinitions(db, with: catalog, files: files)
            for file in PublishedFile.of(publication.sources, badges: publication.badges) {
                try db.execute(
                    sql: "INSERT INTO published_files(name, content) VALUES (?, ?)",
                    arguments: [file.name, Data(file.bytes)])
            }
            let bytes = Dictionary(publication.sources.map { ($0.expectedID, $0.bytes) }) { a, _ in a }
            for revision in publication.revisions {
                try db.execute(
                    sql: """
                        INSERT INTO hunt_revisions(hunt_id, revision, published_at, published_by, source, content)
                        VALUES (?1, (SELECT COALESCE(MAX(revision), 0) + 1 FROM hunt_revisions WHERE hunt_id = ?1),
                            ?2, ?3, ?4, ?5)
                        """,
                    arguments: [
                        revision.huntID, RFC3339.format(publication.at), revision.by,
                        revision.source.rawValue,
                        Data(bytes[revision.huntID] ?? []),
                    ])
            }
            try db.execute(
                sql:
                    "UPDATE hunts SET revision = (SELECT MAX(r.revision) FROM hunt_revisions r WHERE r.hunt_id = hunts.id)"
            )
            for id in publication.publishedDrafts {
                try db.execute(sql: "DELETE FROM hunt_drafts WHERE hunt_id = ?", arguments: [id])
            }
            try db.execute(
                sql:
                    "INSERT INTO sync_state(key, value) VALUES ('hunts', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [fingerprint])
            // The folder's stat signature belongs to the old definitions: forgotten with them, so
            // that a sync killed before it records the new one reads the files next time (it
            // used to find the old folder's signature and keep the other folder's stops).
            try db.execute(sql: "DELETE FROM sync_state WHERE key = 'hunts-stat'")
            try Self.rescoreEveryone(db)
        }
        return .updated(hunts: catalog.hunts.count, stops: catalog.hunts.reduce(0) { $0 + $1.stops.count })
    }

    /// Each hunt's latest revision (`HuntStore.latestRevisions`).
    public func latestRevisions() async throws -> [String: HuntRevision] {
        try await read { db in
            var latest: [String: HuntRevision] = [:]
            for revision in try Self.revisionRows(
                db,
                where: "revision = (SELECT MAX(m.revision) FROM hunt_revisions m WHERE m.hunt_id = r.hunt_id)"
            ) {
                latest[revision.huntID] = revision
            }
            return latest
        }
    }

    /// A hunt's revisions, newest first (`HuntStore.revisions`).
    public func revisions(huntID: String) async throws -> [HuntRevision] {
        try await read { try Self.revisionRows($0, where: "hunt_id = ?", arguments: [huntID]) }
    }

    static func revisionRows(_ db: Database, where condition: String, arguments: StatementArguments = [])
        throws -> [HuntRevision]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT hunt_id, revision, published_at, published_by, source FROM hunt_revisions r
                WHERE \(condition) ORDER BY hunt_id, revision DESC
                """, arguments: arguments
        ).map { row in
            HuntRevision(
                huntID: row[0], revision: row[1],
                publishedAt: RFC3339.parse(row[2] as String) ?? .distantPast,
                by: row[3], source: RevisionSource(rawValue: row[4] as String) ?? .files)
        }
    }

    /// A hunt's draft (`HuntStore.draft`).
    public func draft(huntID: String) async throws -> HuntDraft? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT content, saved_at, saved_by FROM hunt_drafts WHERE hunt_id = ?",
                arguments: [huntID]
            ).map { row in
                HuntDraft(
                    huntID: huntID, bytes: [UInt8](row[0] as Data),
                    savedAt: RFC3339.parse(row[1] as String) ?? .distantPast, by: row[2])
            }
        }
    }

    /// Keeps a draft (`HuntStore.saveDraft`).
    public func saveDraft(_ draft: HuntDraft) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO hunt_drafts(hunt_id, content, saved_at, saved_by) VALUES (?, ?, ?, ?)
                    ON CONFLICT(hunt_id) DO UPDATE SET content = excluded.content, saved_at = excluded.saved_at,
                        saved_by = excluded.saved_by
                    """,
                arguments: [draft.huntID, Data(draft.bytes), RFC3339.format(draft.savedAt), draft.by])
        }
    }

    /// Drops a draft (`HuntStore.dropDraft`).
    @discardableResult
    public func dropDraft(huntID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM hunt_drafts WHERE hunt_id = ?", arguments: [huntID])
            return db.changesCount > 0
        }
    }

    /// The hunts with drafts (`HuntStore.draftIDs`).
    public func draftIDs() async throws -> [String] {
        try await read { try String.fetchAll($0, sql: "SELECT hunt_id FROM hunt_drafts ORDER BY hunt_id") }
    }

    /// Replaces every hunt and stop with a catalog the caller validated itself
    /// (tests, tools that build geometry in code), in one transaction. The next
    /// `sync` from files will load the files again.
    public func replace(with catalog: HuntCatalog) async throws {
        try await write { db in
            try Self.replaceDefinitions(db, with: catalog, files: [:])
            try db.execute(sql: "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')")
            try Self.rescoreEveryone(db)
        }
    }

    /// The files the definitions were last synced from (`HuntStore.publishedFiles`).
    public func publishedFiles() async throws -> [PublishedFile] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT name, content FROM published_files ORDER BY rowid").map {
                PublishedFile(name: $0[0], bytes: [UInt8]($0[1] as Data))
            }
        }
    }

    /// The badges of the definitions (`HuntStore.badgeDefinitions`).
    public func badgeDefinitions() async throws -> [Badge] {
        try await read { try Self.scoringCatalog($0).badges }
    }

    /// Translations as stored: JSON text, or nil for none.
    static func translationsText(_ translations: [String: Translation]) -> String? {
        translations.isEmpty ? nil : HuntFile.translationsJSON(translations).compactText
    }

    static func replaceDefinitions(_ db: Database, with catalog: HuntCatalog, files: [String: String])
        throws
    {
        // Stops' rows carry SpatiaLite geometry (and its triggers keep the spatial index).
        try SpatiaLiteDatabase.attachSpatiaLite(db)
        // The files of the definitions that go (a sync writes its own after this).
        try db.execute(sql: "DELETE FROM published_files")
        // A new token for these definitions: a process that keeps hunts decoded (`HuntCache`)
        // reads it in each transaction and decodes them again when it changed.
        try db.execute(
            sql: """
                INSERT INTO sync_state(key, value) VALUES ('definitions', ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, arguments: [UUID().uuidString])
        // The secrets vsh made for stops (rotating codes written `true`) outlive the rows.
        let previousSecrets = Dictionary(
            try Row.fetchAll(db, sql: "SELECT id, secrets FROM stops WHERE secrets IS NOT NULL").map {
                ($0[0] as String, $0[1] as String)
            }, uniquingKeysWith: { first, _ in first })
        try db.execute(sql: "DELETE FROM stops")
        try db.execute(sql: "DELETE FROM hunts")
        try db.execute(sql: "DELETE FROM badges")
        for (position, badge) in catalog.badges.enumerated() {
            try db.execute(
                sql:
                    "INSERT INTO badges(id, position, name, description, points, rule) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    badge.id, position, badge.name, badge.description, badge.points,
                    BadgeFile.ruleJSON(badge.rule).compactText,
                ])
        }
        let insertHunt = try db.makeStatement(
            sql: """
                INSERT INTO hunts(id, position, name, description, difficulty, bonus_points, ordered, timezone,
                    starts_at, ends_at, max_accuracy_m, max_photo_age_s, tolerance_m, image, file, max_fix_age_s,
                    late_grace_s, proof, max_speed_kmh, min_duration_s, translations, visibility, join_code,
                    play, max_team_size, share_positions)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let insertStop = try db.makeStatement(
            sql: """
                INSERT INTO stops(id, hunt_id, position, name, description, points, image, geometry_json, geom, area_m2,
                    featured, sponsor, geometry_bin, proof, translations, secrets)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, CastToMultiPolygon(GeomFromText(?, 4326)), ?, ?, ?, ?, ?, ?, ?)
                """)
        for (position, hunt) in catalog.hunts.enumerated() {
            try insertHunt.execute(arguments: [
                hunt.id, position, hunt.name, hunt.description, hunt.difficulty.rawValue, hunt.bonusPoints,
                hunt.ordered, hunt.timeZone, hunt.startsAt.map(RFC3339.format),
                hunt.endsAt.map(RFC3339.format),
                hunt.maxAccuracyMeters, hunt.maxPhotoAgeSeconds, hunt.toleranceMeters, hunt.image,
                files[hunt.id] ?? "\(hunt.id).geojson", hunt.maxFixAgeSeconds, hunt.lateGraceSeconds,
                hunt.proofText, hunt.maxSpeedKmh, hunt.minDurationSeconds,
                translationsText(hunt.translations), hunt.visibility.rawValue, hunt.joinCode,
                hunt.play.rawValue, hunt.maxTeamSize, hunt.sharePositions,
            ])
            for (stopPosition, stop) in hunt.stops.enumerated() {
                try insertStop.execute(arguments: [
                    stop.id, hunt.id, stopPosition, stop.name, stop.description, stop.points, stop.image,
                    stop.geofence.geoJSON().compactText, stop.geofence.wkt,
                    Geodesic.areaSquareMeters(of: stop.geofence), stop.featured, stop.sponsor,
                    Data(HuntFile.storedBytes(stop.geofence)),
                    stop.proof.isEmpty ? nil : StopProof.text(stop.proof),
                    translationsText(stop.translations),
                    StoredStopSecrets.text(for: stop, previous: previousSecrets[stop.id]),
                ])
            }
        }
        // Bulk lookups read the stops gathered once (each insert above removed what was kept).
        try keepCompiledGeofences(db)
    }
}
