public import Foundation
internal import GRDB
public import VSHCore

/// A check-in as recorded.
public struct RecordedCheckIn: Sendable {
    public var id: Int64
    public var player: String
    public var receivedAt: Date
    public var source: FixSource
    public var decision: Decision
    /// The current state: the verdict, or what a moderator decided since.
    public var state: String
    public var photoFile: String?
    /// Hunt bonuses and badges this check-in earned (stop points are in `decision.points`).
    public var awards: [ScoreEvent] = []
}

extension GeofenceStore {
    /// Decides and records a submission in one IMMEDIATE transaction: the facts
    /// (covering and nearest stops, the player's visits and neighbouring fixes,
    /// earlier uses of the photo) are read, `decide` runs, and the check-in is
    /// inserted, all while other writers wait. Two processes submitting one
    /// photo at the same moment are therefore serialised: the second sees the first.
    ///
    /// - Throws: `InputError` for an unknown player or hunt (nothing is written).
    public func record(
        _ submission: Submission, photoFile: String?, decide: (Submission, CheckInFacts) -> Decision
    ) throws -> RecordedCheckIn {
        try run {
            var recorded: RecordedCheckIn?
            try queue.inTransaction(.immediate) { db in
                let playerID = try Self.playerID(db, name: submission.player)
                let facts = try Self.facts(db, for: submission, playerID: playerID)
                let decision = decide(submission, facts)
                let id = try Self.insert(db, submission, decision: decision, playerID: playerID, photoFile: photoFile)
                let name = try String.fetchOne(db, sql: "SELECT name FROM players WHERE id = ?", arguments: [playerID])
                var awards: [ScoreEvent] = []
                if decision.verdict == .accepted {
                    awards = try Self.rescore(db, playerID: playerID).filter { $0.checkInID == id && $0.kind != .stop }
                }
                recorded = RecordedCheckIn(
                    id: id, player: name ?? submission.player, receivedAt: submission.receivedAt, source: submission.source,
                    decision: decision, state: decision.verdict.rawValue, photoFile: photoFile, awards: awards)
                return .commit
            }
            return recorded!
        }
    }

    /// Decides and records many submissions in one IMMEDIATE transaction (one
    /// durable commit): each is decided with the facts as they stand after the
    /// ones before it, by the same rules as `record`. Players are rescored once
    /// at the end; each check-in's awards are the score events it earned.
    public func recordBatch(
        _ submissions: [(submission: Submission, photoFile: String?)], decide: (Submission, CheckInFacts) -> Decision
    ) throws -> [RecordedCheckIn] {
        try run {
            var recorded: [RecordedCheckIn] = []
            try queue.inTransaction(.immediate) { db in
                var players: [String: (id: Int64, name: String)] = [:]
                var rescore = Set<Int64>()
                var cache = FactsCache()
                for (submission, photoFile) in submissions {
                    let key = PlayerName.key(submission.player)
                    if players[key] == nil {
                        let id = try Self.playerID(db, name: submission.player)
                        players[key] = (id, try String.fetchOne(db, sql: "SELECT name FROM players WHERE id = ?", arguments: [id]) ?? submission.player)
                    }
                    let player = players[key]!
                    let facts = try Self.facts(db, for: submission, playerID: player.id, cache: &cache)
                    let decision = decide(submission, facts)
                    let id = try Self.insert(db, submission, decision: decision, playerID: player.id, photoFile: photoFile)
                    if decision.verdict == .accepted, let stop = decision.stop, let fix = decision.fix {
                        rescore.insert(player.id)
                        cache.accepted(playerID: player.id, huntID: stop.huntID, stopID: stop.id, at: fix.time)
                    }
                    recorded.append(RecordedCheckIn(
                        id: id, player: player.name, receivedAt: submission.receivedAt, source: submission.source, decision: decision,
                        state: decision.verdict.rawValue, photoFile: photoFile))
                }
                var awards: [Int64: [ScoreEvent]] = [:]
                let catalog = try Self.scoringCatalog(db)
                for playerID in rescore {
                    for event in try Self.rescore(db, playerID: playerID, catalog: catalog) where event.kind != .stop {
                        awards[event.checkInID, default: []].append(event)
                    }
                }
                for i in recorded.indices { recorded[i].awards = awards[recorded[i].id] ?? [] }
                return .commit
            }
            return recorded
        }
    }

    /// What one transaction has already read: hunt definitions (a stop's
    /// geometry is parsed once) and each player's visited stops per hunt, kept
    /// up to date as the transaction accepts check-ins (a batch of one player's
    /// photos would otherwise re-read their whole history for every photo).
    struct FactsCache {
        var hunts: [String: Hunt] = [:]
        var visited: [String: [String: Date]] = [:]

        mutating func hunt(_ db: Database, _ id: String) throws -> Hunt? {
            if let hunt = hunts[id] { return hunt }
            let hunt = try GeofenceStore.loadHunts(db, id: id).first?.hunt
            hunts[id] = hunt
            return hunt
        }

        mutating func visited(_ db: Database, playerID: Int64, huntID: String) throws -> [String: Date] {
            let key = "\(playerID)|\(huntID)"
            if let known = visited[key] { return known }
            var found: [String: Date] = [:]
            for row in try Row.fetchAll(
                try db.cachedStatement(
                    sql: """
                        SELECT stop_id, MIN(fix_epoch) AS first FROM checkin_state
                        WHERE player_id = ? AND hunt_id = ? AND state = 'accepted' AND stop_id IS NOT NULL GROUP BY stop_id
                        """),
                arguments: [playerID, huntID])
            {
                found[row["stop_id"]] = Date(timeIntervalSince1970: row["first"] ?? 0)
            }
            visited[key] = found
            return found
        }

        /// Records an accepted check-in the transaction just inserted.
        mutating func accepted(playerID: Int64, huntID: String, stopID: String, at time: Date) {
            let key = "\(playerID)|\(huntID)"
            guard var known = visited[key] else { return }
            if known[stopID].map({ time < $0 }) ?? true { known[stopID] = time }
            visited[key] = known
        }
    }

    static func facts(_ db: Database, for submission: Submission, playerID: Int64) throws -> CheckInFacts {
        var cache = FactsCache()
        return try facts(db, for: submission, playerID: playerID, cache: &cache)
    }

    static func facts(_ db: Database, for submission: Submission, playerID: Int64, cache: inout FactsCache) throws -> CheckInFacts {
        var hunt: Hunt?
        if let requested = submission.huntID {
            guard let found = try cache.hunt(db, requested) else {
                let known = try String.fetchAll(db, sql: "SELECT id FROM hunts ORDER BY position").joined(separator: ", ")
                throw InputError("no hunt \"\(requested)\"" + (known.isEmpty ? "" : " (hunts: \(known))"))
            }
            hunt = found
        }
        var facts = CheckInFacts(hunt: hunt)
        if let position = submission.reportedPosition {
            let covering = try covering(db, position, huntID: submission.huntID)
            if hunt == nil, let first = covering.first { hunt = try cache.hunt(db, first.huntID) }
            if covering.isEmpty, let nearest = try nearest(db, position, huntID: submission.huntID) {
                if hunt == nil { hunt = try cache.hunt(db, nearest.stop.huntID) }
                if let stop = hunt?.stops.first(where: { $0.id == nearest.stop.stopID }) {
                    facts.nearestStop = (stop, nearest.distanceMeters)
                }
            }
            facts.hunt = hunt
            facts.coveringStops = covering.compactMap { ref in hunt?.stops.first { $0.id == ref.stopID } }
        }
        if let hunt { facts.visitedStops = try cache.visited(db, playerID: playerID, huntID: hunt.id) }
        if let time = captureEpoch(submission, hunt: hunt) {
            let neighbour = """
                SELECT lat, lon, accuracy_m, fix_epoch, source FROM checkin_state
                WHERE player_id = ?1 AND state = 'accepted' AND fix_epoch IS NOT NULL AND fix_epoch %@ ?2
                ORDER BY fix_epoch %@ LIMIT 1
                """
            for (comparison, order) in [("<=", "DESC"), (">", "ASC")] {
                let sql = String(format: neighbour, comparison, order)
                if let row = try Row.fetchOne(try db.cachedStatement(sql: sql), arguments: [playerID, time]),
                    let position = try? Coordinate(latitude: row["lat"], longitude: row["lon"])
                {
                    facts.neighbourFixes.append(
                        Fix(position: position, time: Date(timeIntervalSince1970: row["fix_epoch"]),
                            accuracyMeters: row["accuracy_m"], source: FixSource(rawValue: row["source"]) ?? .photo))
                }
            }
        }
        if let photo = submission.photo {
            facts.earlierUseOfPhoto = try Int64.fetchOne(
                try db.cachedStatement(sql: "SELECT id FROM checkins WHERE image_sha256 = ? ORDER BY id LIMIT 1"), arguments: [photo.imageSHA256])
        }
        return facts
    }

    /// The capture time as the verifier will see it (for finding neighbouring fixes).
    static func captureEpoch(_ submission: Submission, hunt: Hunt?) -> Double? {
        switch submission.evidence {
        case .device(_, let time, _): return time.timeIntervalSince1970
        case .photo(let photo):
            let zone = TimeZone(identifier: hunt?.timeZone ?? "UTC") ?? TimeZone(identifier: "UTC")!
            return (photo.metadata.gpsTime ?? photo.metadata.takenAt(inTimeZone: zone))?.timeIntervalSince1970
        }
    }

    static func insert(_ db: Database, _ submission: Submission, decision: Decision, playerID: Int64, photoFile: String?) throws -> Int64 {
        let position = submission.reportedPosition
        let fixTime = decision.fix?.time ?? (captureEpoch(submission, hunt: decision.hunt).map { Date(timeIntervalSince1970: $0) })
        let arguments: StatementArguments = [
            playerID, RFC3339.format(submission.receivedAt), submission.source.rawValue, photoFile,
            submission.photo?.fileSHA256, submission.photo?.imageSHA256,
            position?.latitude, position?.longitude, submission.accuracyMeters,
            fixTime.map(RFC3339.format), fixTime?.timeIntervalSince1970,
            decision.hunt?.id, decision.stop?.id, decision.verdict.rawValue, decision.points,
            rulesJSON(decision.rules).compactText,
        ]
        try db.cachedStatement(
            sql: """
                INSERT INTO checkins(player_id, received_at, source, photo_file, photo_sha256, image_sha256, lat, lon,
                    accuracy_m, fix_time, fix_epoch, hunt_id, stop_id, verdict, points, rules)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: arguments)
        return db.lastInsertedRowID
    }

    /// `[{rule, result, detail}]`, the shape `--json` prints and the audit trail keeps.
    public static func rulesJSON(_ rules: [RuleResult]) -> JSONValue {
        .array(rules.map { .object(["rule": .string($0.rule.rawValue), "result": .string($0.outcome.rawValue), "detail": .string($0.detail)]) })
    }
}
