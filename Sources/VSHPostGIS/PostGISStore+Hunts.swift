import Foundation
internal import PostgresNIO
import Synchronization
public import VSHCore
import VSHGeodesy
import VSHHost

extension PostGISStore {
    // MARK: reading hunts

    /// Every hunt with its stops, from the synced rows: read again only when a sync changed them
    /// (`generation`, one short statement a call, shared by the calls that arrive together:
    /// `BatchedLookups`). A check-in that names its hunt asks for it.
    public func hunts() async throws -> [StoredHunt] {
        if pinned == nil, let kept = storedHunts.withLock({ $0 }) {
            let generation = try await generationLookups.find("") { _ in
                try await self.read { db in ["": try await self.generation(db)] }
            }
            if kept.generation == generation { return kept.hunts }
        }
        return try await read { db in
            let generation = try await self.generation(db)
            if let kept = self.storedHunts.withLock({ $0 }), kept.generation == generation {
                return kept.hunts
            }
            // Read after the generation: hunts newer than it are only read again next time.
            let hunts = try await self.loadHunts(db, id: nil)
            self.storedHunts.withLock { $0 = (generation, hunts) }
            return hunts
        }
    }

    /// One hunt with its stops, or nil.
    public func hunt(id: String) async throws -> StoredHunt? {
        try await hunts().first { $0.hunt.id == id }
    }

    /// The definitions' generation (`sync_state`), new at every sync.
    func generation(_ db: PostgresConnection) async throws -> String {
        try await db.rows(Prepared<GenerationSQL>(), logger: logger).first?.decode(String.self) ?? ""
    }

    func loadHunts(_ db: PostgresConnection, id: String?) async throws -> [StoredHunt] {
        var hunts: [StoredHunt] = []
        let huntRows = try await db.query(
            """
            SELECT id, name, description, difficulty, bonus_points, ordered, timezone, starts_at, ends_at,
                max_accuracy_m, max_photo_age_s, max_fix_age_s, tolerance_m, image, file, late_grace_s, proof,
                max_speed_kmh, min_duration_s, translations, visibility, join_code, play, max_team_size,
                share_positions
            FROM hunts WHERE \(id)::text IS NULL OR id = \(id) ORDER BY position
            """, logger: logger
        ).collect()
        for row in huntRows {
            let (
                huntID, name, description, difficulty, bonus, ordered, timezone, startsAt, endsAt, accuracy,
                photoAge, fixAge, tolerance, image, file, grace, proof, speed, minimumDuration, translations,
                visibility, joinCode, play, maxTeamSize, sharePositions
            ) = try row.decode(
                (
                    String, String, String, String, Int, Bool, String, String?, String?, Double, Double,
                    Double, Double, String?, String, Double, String, Double, Double?, String?, String,
                    String?,
                    String, Int?, Bool
                ).self)
            var hunt = Hunt(id: huntID, name: name)
            hunt.description = description
            hunt.difficulty = Hunt.Difficulty(rawValue: difficulty) ?? .medium
            hunt.bonusPoints = bonus
            hunt.ordered = ordered
            hunt.timeZone = timezone
            hunt.startsAt = startsAt.flatMap(RFC3339.parse)
            hunt.endsAt = endsAt.flatMap(RFC3339.parse)
            hunt.maxAccuracyMeters = accuracy
            hunt.maxPhotoAgeSeconds = photoAge
            hunt.maxFixAgeSeconds = fixAge
            hunt.lateGraceSeconds = grace
            hunt.setProof(text: proof)
            hunt.maxSpeedKmh = speed
            hunt.minDurationSeconds = minimumDuration
            hunt.toleranceMeters = tolerance
            hunt.image = image
            hunt.translations = HuntFile.translations(stored: translations)
            hunt.visibility = Hunt.Visibility(rawValue: visibility) ?? .public
            hunt.joinCode = joinCode
            hunt.play = Hunt.Play(rawValue: play) ?? .solo
            hunt.maxTeamSize = maxTeamSize
            hunt.sharePositions = sharePositions
            var areas: [String: Double] = [:]
            for stopRow in try await db.query(
                """
                SELECT id, geometry_json, name, description, points, image, area_m2, featured, sponsor, proof,
                    translations, secrets
                FROM stops WHERE hunt_id = \(huntID) ORDER BY position
                """, logger: logger
            ).collect() {
                let (
                    stopID, geometry, stopName, stopDescription, points, stopImage, area, featured, sponsor,
                    stopProof, stopTranslations, secrets
                ) =
                    try stopRow.decode(
                        (
                            String, String, String, String, Int, String?, Double, Bool, String?, String?,
                            String?, String?
                        ).self)
                let geofence: Geofence
                do {
                    geofence =
                        try HuntFile.storedGeofence(geometry)
                        ?? HuntFile.geofence(from: try JSONValue.parse(geometry))
                } catch {
                    throw PostGISError(
                        kind: .data, message: "stop \(stopID) has a damaged geometry", location: location)
                }
                var stop = Stop(
                    id: stopID, huntID: huntID, name: stopName, description: stopDescription,
                    points: points,
                    image: stopImage, geofence: geofence, featured: featured, sponsor: sponsor,
                    proof: stopProof.flatMap(StopProof.parse) ?? [])
                stop.translations = HuntFile.translations(stored: stopTranslations)
                StoredStopSecrets.apply(secrets, to: &stop)
                hunt.stops.append(stop)
                areas[stopID] = area
            }
            hunts.append(StoredHunt(hunt: hunt, file: file, stopAreas: areas))
        }
        return hunts
    }

    /// The hunts as the rules and scoring see them, read again only when a sync changed them
    /// (`generation`).
    func catalogue(_ db: PostgresConnection) async throws -> Catalogue {
        try await catalogue(db, generation: try await generation(db))
    }

    /// The hunts as of `generation`, read again only when it is not the cached one's.
    func catalogue(_ db: PostgresConnection, generation: String) async throws -> Catalogue {
        if let cached = huntCache.withLock({ $0 }), cached.generation == generation {
            return cached.catalogue
        }
        let loaded = try await loadHunts(db, id: nil).map(\.hunt)
        let catalogue = Catalogue(
            hunts: Dictionary(uniqueKeysWithValues: loaded.map { ($0.id, $0) }), order: loaded.map(\.id),
            scoring: try await scoringCatalog(db))
        huntCache.withLock { $0 = (generation, catalogue) }
        return catalogue
    }

    // MARK: lookups

    /// The stops whose geofence covers a position (`ST_Covers`, boundary included), in hunt then
    /// stop order; candidates come from the GiST index.
    public func stops(covering position: Coordinate, inHunt huntID: String?) async throws -> [StopReference] {
        try await read { db in try await self.covering(db, position, huntID: huntID) }
    }

    /// Every position's covering stops, on one connection.
    public func stops(covering positions: [Coordinate], inHunt huntID: String?) async throws
        -> [[StopReference]]
    {
        try await read { db in
            var answers: [[StopReference]] = []
            answers.reserveCapacity(positions.count)
            for position in positions {
                answers.append(try await self.covering(db, position, huntID: huntID))
            }
            return answers
        }
    }

    func covering(_ db: PostgresConnection, _ position: Coordinate, huntID: String?) async throws
        -> [StopReference]
    {
        try await db.rows(
            Prepared<CoveringSQL>(position.longitude, position.latitude, huntID), logger: logger
        ).map { row in
            let (hunt, stop, name) = try row.decode((String, String, String).self)
            return StopReference(huntID: hunt, stopID: stop, name: name)
        }
    }

    /// The stop nearest to a position, and the geodesic distance to its boundary in metres
    /// (Karney's, as on SpatiaLite): candidates from the GiST index in growing boxes.
    public func nearestStop(to position: Coordinate, inHunt huntID: String?) async throws -> NearestStop? {
        try await read { db in try await self.nearest(db, position, huntID: huntID) }
    }

    func nearest(_ db: PostgresConnection, _ position: Coordinate, huntID: String?) async throws
        -> NearestStop?
    {
        var radius = 100.0
        while true {
            let rows: [PostgresRow]
            if radius < 20_000_000 {
                let dLat = radius / 110_574 * 1.01
                let cosLat = cos(min(89.9, abs(position.latitude) + dLat) * .pi / 180)
                let dLon = min(360, dLat * 110_574 / (111_320 * cosLat))
                let (lon, lat) = (position.longitude, position.latitude)
                rows = try await db.query(
                    """
                    SELECT s.hunt_id, s.id, s.name, s.geometry_json FROM stops s
                    WHERE s.geom && ST_MakeEnvelope(\(lon - dLon), \(lat - dLat), \(lon + dLon), \(lat + dLat), 4326)
                      AND (\(huntID)::text IS NULL OR s.hunt_id = \(huntID))
                    """, logger: logger
                ).collect()
            } else {
                rows = try await db.query(
                    """
                    SELECT s.hunt_id, s.id, s.name, s.geometry_json FROM stops s
                    WHERE \(huntID)::text IS NULL OR s.hunt_id = \(huntID)
                    """, logger: logger
                ).collect()
            }
            var best: NearestStop?
            for row in rows {
                let (hunt, stop, name, geometry) = try row.decode((String, String, String, String).self)
                guard let fence = try? HuntFile.geofence(from: try JSONValue.parse(geometry)) else {
                    continue
                }
                let distance = Geodesic.distanceMeters(from: position, toBoundaryOf: fence)
                if distance < best?.distanceMeters ?? .infinity {
                    best = NearestStop(
                        stop: StopReference(huntID: hunt, stopID: stop, name: name), distanceMeters: distance)
                }
            }
            if let best, best.distanceMeters <= radius || radius >= 20_000_000 { return best }
            if radius >= 20_000_000 { return nil }
            radius *= 10
        }
    }

    /// The stops a segment crosses (`ST_Intersects` with the line), with the fraction along the
    /// segment of the middle of the part inside each.
    public func stops(crossedBy a: Coordinate, _ b: Coordinate, inHunt huntID: String?) async throws
        -> [CrossedStop]
    {
        try await read { db in try await self.crossed(db, Segment(from: a, to: b), huntID: huntID) }
    }

    /// Every segment's crossed stops, on one connection.
    public func stops(crossedBy segments: [Segment], inHunt huntID: String?) async throws -> [[CrossedStop]] {
        try await read { db in
            var answers: [[CrossedStop]] = []
            for segment in segments { answers.append(try await self.crossed(db, segment, huntID: huntID)) }
            return answers
        }
    }

    func crossed(_ db: PostgresConnection, _ segment: Segment, huntID: String?) async throws -> [CrossedStop]
    {
        let (a, b) = (segment.from, segment.to)
        return try await db.query(
            """
            SELECT s.hunt_id, s.id, s.name,
                ST_LineLocatePoint(l.line, ST_Centroid(ST_Intersection(s.geom, l.line))) AS fraction
            FROM stops s JOIN hunts h ON h.id = s.hunt_id,
                (SELECT ST_SetSRID(ST_MakeLine(ST_MakePoint(\(a.longitude), \(a.latitude)),
                    ST_MakePoint(\(b.longitude), \(b.latitude))), 4326) AS line) l
            WHERE ST_Intersects(s.geom, l.line)
              AND (\(huntID)::text IS NULL OR s.hunt_id = \(huntID))
            ORDER BY h.position, s.position
            """, logger: logger
        ).collect().map { row in
            let (hunt, stop, name, fraction) = try row.decode((String, String, String, Double?).self)
            return CrossedStop(
                stop: StopReference(huntID: hunt, stopID: stop, name: name),
                fraction: min(1, max(0, fraction ?? 0.5)))
        }
    }

    // MARK: sync

    /// Publishes (`HuntStore.publish`): every file is validated first (PostGIS's
    /// `ST_IsValidReason`, Karney's area), and only when all are valid are the definitions
    /// replaced, the revisions recorded and everyone rescored, in one transaction holding the
    /// catalogue lock. A bad file leaves the last good definitions and throws `HuntFileErrors`.
    @discardableResult
    public func publish(_ publication: Publication) async throws -> SyncOutcome {
        let catalog = try await validated(publication.sources, badges: publication.badges)
        let files = Dictionary(publication.sources.map { ($0.expectedID, $0.path) }) { a, _ in a }
        let bytes = Dictionary(publication.sources.map { ($0.expectedID, $0.bytes) }) { a, _ in a }
        let fingerprint = publication.fingerprint
        try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(Lock.catalogue))", logger: self.logger)
            let stored = try await db.query(
                "SELECT value FROM sync_state WHERE key = 'hunts'", logger: self.logger
            )
            .collect().first?.decode(String.self)
            if stored == fingerprint && publication.revisions.isEmpty {
                for id in publication.publishedDrafts {
                    try await db.query("DELETE FROM hunt_drafts WHERE hunt_id = \(id)", logger: self.logger)
                }
                return
            }
            guard stored == publication.basedOn else { throw PublicationRace() }
            try await self.replaceDefinitions(db, with: catalog, files: files)
            for (position, file) in PublishedFile.of(publication.sources, badges: publication.badges)
                .enumerated()
            {
                try await db.query(
                    """
                    INSERT INTO published_files(position, name, content)
                    VALUES (\(position), \(file.name), \(ByteBuffer(bytes: file.bytes)))
                    """, logger: self.logger)
            }
            let at = RFC3339.format(publication.at)
            for revision in publication.revisions {
                let content = ByteBuffer(bytes: bytes[revision.huntID] ?? [])
                try await db.query(
                    """
                    INSERT INTO hunt_revisions(hunt_id, revision, published_at, published_by, source, content)
                    SELECT \(revision.huntID), COALESCE(MAX(revision), 0) + 1, \(at), \(revision.by),
                        \(revision.source.rawValue), \(content)
                    FROM hunt_revisions WHERE hunt_id = \(revision.huntID)
                    """, logger: self.logger)
            }
            try await db.query(
                "UPDATE hunts SET revision = (SELECT MAX(r.revision) FROM hunt_revisions r WHERE r.hunt_id = hunts.id)",
                logger: self.logger)
            for id in publication.publishedDrafts {
                try await db.query("DELETE FROM hunt_drafts WHERE hunt_id = \(id)", logger: self.logger)
            }
            try await self.setValue("hunts", fingerprint, db)
            // The folder's stat signature belongs to the old definitions: forgotten with them, so
            // that a sync killed before it records the new one reads the files next time.
            try await db.query("DELETE FROM sync_state WHERE key = 'hunts-stat'", logger: self.logger)
            try await self.rescoreEveryone(db)
        }
        return .updated(hunts: catalog.hunts.count, stops: catalog.hunts.reduce(0) { $0 + $1.stops.count })
    }

    /// The fingerprint of the published files (`HuntStore.publishedFingerprint`).
    public func publishedFingerprint() async throws -> String? { try await storedValue("hunts") }

    /// Each hunt's latest revision (`HuntStore.latestRevisions`).
    public func latestRevisions() async throws -> [String: HuntRevision] {
        var latest: [String: HuntRevision] = [:]
        for revision in try await revisionRows(huntID: nil, latestOnly: true) {
            latest[revision.huntID] = revision
        }
        return latest
    }

    /// A hunt's revisions, newest first (`HuntStore.revisions`).
    public func revisions(huntID: String) async throws -> [HuntRevision] {
        try await revisionRows(huntID: huntID, latestOnly: false)
    }

    func revisionRows(huntID: String?, latestOnly: Bool) async throws -> [HuntRevision] {
        try await read { db in
            try await db.query(
                """
                SELECT hunt_id, revision, published_at, published_by, source FROM hunt_revisions r
                WHERE (\(huntID)::text IS NULL OR hunt_id = \(huntID))
                  AND (NOT \(latestOnly)::bool
                       OR revision = (SELECT MAX(m.revision) FROM hunt_revisions m WHERE m.hunt_id = r.hunt_id))
                ORDER BY hunt_id, revision DESC
                """, logger: self.logger
            ).collect().map { row in
                let (hunt, revision, at, by, source) = try row.decode(
                    (String, Int, String, String?, String).self)
                return HuntRevision(
                    huntID: hunt, revision: revision, publishedAt: RFC3339.parse(at) ?? .distantPast, by: by,
                    source: RevisionSource(rawValue: source) ?? .files)
            }
        }
    }

    /// A hunt's draft (`HuntStore.draft`).
    public func draft(huntID: String) async throws -> HuntDraft? {
        try await read { db in
            try await db.query(
                "SELECT content, saved_at, saved_by FROM hunt_drafts WHERE hunt_id = \(huntID)",
                logger: self.logger
            ).collect().first.map { row in
                let (content, at, by) = try row.decode((ByteBuffer, String, String?).self)
                return HuntDraft(
                    huntID: huntID, bytes: Array(content.readableBytesView),
                    savedAt: RFC3339.parse(at) ?? .distantPast, by: by)
            }
        }
    }

    /// Keeps a draft (`HuntStore.saveDraft`).
    public func saveDraft(_ draft: HuntDraft) async throws {
        try await transaction { db in
            try await db.query(
                """
                INSERT INTO hunt_drafts(hunt_id, content, saved_at, saved_by)
                VALUES (\(draft.huntID), \(ByteBuffer(bytes: draft.bytes)), \(RFC3339.format(draft.savedAt)), \(draft.by))
                ON CONFLICT (hunt_id) DO UPDATE SET content = excluded.content, saved_at = excluded.saved_at,
                    saved_by = excluded.saved_by
                """, logger: self.logger)
        }
    }

    /// Drops a draft (`HuntStore.dropDraft`).
    @discardableResult
    public func dropDraft(huntID: String) async throws -> Bool {
        try await transaction { db in
            try await db.query(
                "DELETE FROM hunt_drafts WHERE hunt_id = \(huntID) RETURNING hunt_id", logger: self.logger
            ).collect().count > 0
        }
    }

    /// The hunts with drafts (`HuntStore.draftIDs`).
    public func draftIDs() async throws -> [String] {
        try await read { db in
            try await db.query("SELECT hunt_id FROM hunt_drafts ORDER BY hunt_id", logger: self.logger)
                .collect()
                .map { try $0.decode(String.self) }
        }
    }

    /// Replaces every hunt and stop with a catalog the caller validated, then rescores.
    public func replace(with catalog: HuntCatalog) async throws {
        try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(Lock.catalogue))", logger: self.logger)
            try await self.replaceDefinitions(db, with: catalog, files: [:])
            try await db.query(
                "DELETE FROM sync_state WHERE key IN ('hunts', 'hunts-stat')", logger: self.logger)
            try await self.rescoreEveryone(db)
        }
    }

    /// The catalog of `sources`, each geofence checked by PostGIS: the geofences are collected
    /// first, asked about in one query, and the catalog built over the answers.
    func validated(_ sources: [HuntCatalog.Source], badges: HuntCatalog.Source?) async throws -> HuntCatalog {
        let collector = CollectingInspector()
        _ = HuntCatalog.build(sources, badges: badges, inspector: collector)
        let shapes = Array(Set(collector.seen.withLock { $0 }))
        var reasons: [String: String] = [:]
        if !shapes.isEmpty {
            reasons = try await read { db in
                var found: [String: String] = [:]
                for row in try await db.query(
                    """
                    SELECT w, ST_IsValidReason(ST_GeomFromText(w, 4326))
                    FROM unnest(\(shapes)::text[]) AS w
                    """, logger: self.logger
                ).collect() {
                    let (wkt, reason) = try row.decode((String, String?).self)
                    found[wkt] = reason
                }
                return found
            }
        }
        let inspector = AnsweringInspector(reasons: reasons)
        return try HuntCatalog.build(sources, badges: badges, inspector: inspector).get()
    }

    func replaceDefinitions(
        _ db: PostgresConnection, with catalog: HuntCatalog, files: [String: String]
    ) async throws {
        try await db.query("DELETE FROM published_files", logger: logger)
        // The secrets vsh made for stops (rotating codes written `true`) outlive the rows.
        var previousSecrets: [String: String] = [:]
        for row in try await db.query(
            "SELECT id, secrets FROM stops WHERE secrets IS NOT NULL", logger: logger
        )
        .collect() {
            let (id, secrets) = try row.decode((String, String).self)
            previousSecrets[id] = secrets
        }
        try await db.query("DELETE FROM stops", logger: logger)
        try await db.query("DELETE FROM hunts", logger: logger)
        try await db.query("DELETE FROM badges", logger: logger)
        for (position, badge) in catalog.badges.enumerated() {
            let rule = BadgeFile.ruleJSON(badge.rule).compactText
            try await db.query(
                """
                INSERT INTO badges(id, position, name, description, points, rule)
                VALUES (\(badge.id), \(position), \(badge.name), \(badge.description), \(badge.points), \(rule))
                """, logger: logger)
        }
        for (position, hunt) in catalog.hunts.enumerated() {
            let file = files[hunt.id] ?? "\(hunt.id).geojson"
            try await db.query(
                """
                INSERT INTO hunts(id, position, name, description, difficulty, bonus_points, ordered, timezone,
                    starts_at, ends_at, max_accuracy_m, max_photo_age_s, tolerance_m, image, file, max_fix_age_s,
                    late_grace_s, proof, max_speed_kmh, min_duration_s, translations, visibility, join_code,
                    play, max_team_size, share_positions)
                VALUES (\(hunt.id), \(position), \(hunt.name), \(hunt.description), \(hunt.difficulty.rawValue),
                    \(hunt.bonusPoints), \(hunt.ordered), \(hunt.timeZone), \(hunt.startsAt.map(RFC3339.format)),
                    \(hunt.endsAt.map(RFC3339.format)), \(hunt.maxAccuracyMeters), \(hunt.maxPhotoAgeSeconds),
                    \(hunt.toleranceMeters), \(hunt.image), \(file), \(hunt.maxFixAgeSeconds),
                    \(hunt.lateGraceSeconds), \(hunt.proofText), \(hunt.maxSpeedKmh),
                    \(hunt.minDurationSeconds), \(Self.translationsText(hunt.translations)),
                    \(hunt.visibility.rawValue), \(hunt.joinCode), \(hunt.play.rawValue), \(hunt.maxTeamSize),
                    \(hunt.sharePositions))
                """, logger: logger)
            for (stopPosition, stop) in hunt.stops.enumerated() {
                let geometry = stop.geofence.geoJSON().compactText
                let area = Geodesic.areaSquareMeters(of: stop.geofence)
                try await db.query(
                    """
                    INSERT INTO stops(id, hunt_id, position, name, description, points, image, geometry_json, geom,
                        area_m2, featured, sponsor, proof, translations, secrets)
                    VALUES (\(stop.id), \(hunt.id), \(stopPosition), \(stop.name), \(stop.description), \(stop.points),
                        \(stop.image), \(geometry), ST_Multi(ST_GeomFromText(\(stop.geofence.wkt), 4326)), \(area),
                        \(stop.featured), \(stop.sponsor), \(stop.proof.isEmpty ? nil : StopProof.text(stop.proof)),
                        \(Self.translationsText(stop.translations)),
                        \(StoredStopSecrets.text(for: stop, previous: previousSecrets[stop.id])))
                    """, logger: logger)
            }
        }
        // A new generation: every instance reads the hunts again on its next check-in.
        try await setValue("generation", UUID().uuidString, db)
    }

    /// The files the definitions were last synced from (`HuntStore.publishedFiles`).
    public func publishedFiles() async throws -> [PublishedFile] {
        try await read { db in
            try await db.query(
                "SELECT name, content FROM published_files ORDER BY position", logger: self.logger
            )
            .collect().map { row in
                let (name, content) = try row.decode((String, ByteBuffer).self)
                return PublishedFile(name: name, bytes: Array(content.readableBytesView))
            }
        }
    }

    /// The badges of the definitions (`HuntStore.badgeDefinitions`).
    public func badgeDefinitions() async throws -> [Badge] {
        try await read { try await self.scoringCatalog($0).badges }
    }

    /// Translations as stored: JSON text, or nil for none.
    static func translationsText(_ translations: [String: Translation]) -> String? {
        translations.isEmpty ? nil : HuntFile.translationsJSON(translations).compactText
    }

    /// A `sync_state` value.
    func storedValue(_ key: String) async throws -> String? {
        try await read { db in
            try await db.query("SELECT value FROM sync_state WHERE key = \(key)", logger: self.logger)
                .collect().first?.decode(String.self)
        }
    }

    func setValue(_ key: String, _ value: String, _ db: PostgresConnection) async throws {
        try await db.query(
            """
            INSERT INTO sync_state(key, value) VALUES (\(key), \(value))
            ON CONFLICT (key) DO UPDATE SET value = excluded.value
            """, logger: logger)
    }

    /// Syncs the hunt files of a folder when they changed: an unchanged folder (the same names,
    /// sizes and modification times as at the last sync) is not even read.
    @discardableResult
    public func sync(directory: String, force: Bool) async throws -> SyncOutcome {
        let signature = HuntSources.statSignature(directory: directory)
        if let signature, !force, try await storedValue("hunts") != nil,
            try await storedValue("hunts-stat") == signature
        {
            return .unchanged
        }
        let sources = try HuntSources.read(directory: directory)
        let badges = try HuntSources.readBadges(directory: directory)
        let (outcome, fingerprint) = try await publishFiles(sources, badges: badges, force: force, at: Date())
        if let signature {
            // Only while the published set is still the one this folder gave (another process may
            // have published since).
            try await transaction { db in
                try await db.query("SELECT pg_advisory_xact_lock(\(Lock.catalogue))", logger: self.logger)
                let stored = try await db.query(
                    "SELECT value FROM sync_state WHERE key = 'hunts'", logger: self.logger
                ).collect().first?.decode(String.self)
                if stored == fingerprint { try await self.setValue("hunts-stat", signature, db) }
            }
        }
        return outcome
    }

    /// Connects to the database at `url` and syncs the hunt files into it when they changed
    /// (as `SpatiaLiteStore.open` does): a folder named by the user must exist (exit 66);
    /// the default one may be absent.
    public static func open(url: String, hunts: HuntsFolder?) async throws -> PostGISStore {
        let store = try await PostGISStore(url: url)
        if let hunts, hunts.required || FileManager.default.fileExists(atPath: hunts.path) {
            try await store.sync(directory: hunts.path)
        }
        return store
    }
}

/// Notes every geofence it is asked about and calls each valid: the first pass of `validated`.
final class CollectingInspector: GeofenceInspector, Sendable {
    let seen = Mutex<[String]>([])

    func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
        seen.withLock { $0.append(geofence.wkt) }
        return GeofenceInspection(
            invalidReason: nil, areaSquareMeters: Geodesic.areaSquareMeters(of: geofence))
    }
}

/// Answers from PostGIS's reasons, collected beforehand: the second pass of `validated`.
struct AnsweringInspector: GeofenceInspector {
    var reasons: [String: String]

    func inspect(_ geofence: Geofence) throws -> GeofenceInspection {
        let area = Geodesic.areaSquareMeters(of: geofence)
        guard let reason = reasons[geofence.wkt] else {
            return GeofenceInspection(
                invalidReason: "PostGIS could not read the geometry", areaSquareMeters: area)
        }
        return GeofenceInspection(
            invalidReason: reason == "Valid Geometry" ? nil : GeofenceInspection.plainReason(reason),
            areaSquareMeters: area)
    }
}

/// The definitions a check-in's transaction reads: hunts by id, their order, and what scoring needs.
struct Catalogue: Sendable {
    var hunts: [String: Hunt]
    var order: [String]
    var scoring: (hunts: [ScoringHunt], badges: [Badge])
}
