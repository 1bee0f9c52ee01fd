public import Foundation
internal import GRDB
public import VSHCore
import VSHSQL

extension SpatiaLiteStore {
    /// Check-ins whose state (`checkin_state`) is pending, oldest first.
    public func pendingCheckIns() async throws -> [PendingCheckIn] {
        try await read { db in
            try PendingRow.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.player_id, p.name, c.received_at, c.hunt_id, c.stop_id, s.name AS stop_name, c.rules, c.photo_file,
                        c.lat, c.lon, c.accuracy_m, c.fix_time
                    FROM checkin_state c JOIN players p ON p.id = c.player_id LEFT JOIN stops s ON s.id = c.stop_id
                    WHERE \(CheckInStateSQL.isIn(.pending, "c.")) ORDER BY c.id
                    """
            ).map { row in
                PendingCheckIn(
                    id: row.id, playerID: PlayerID(row.playerID), player: row.name,
                    receivedAt: RFC3339.parse(row.receivedAt) ?? Date(timeIntervalSince1970: 0),
                    huntID: row.huntID, stopID: row.stopID, stopName: row.stopName,
                    reasons: PendingCheckIn.reviewReasons(rulesJSON: row.rules),
                    photoFile: row.photoFile,
                    position: row.lat.flatMap { lat in
                        row.lon.flatMap { lon in try? Coordinate(latitude: lat, longitude: lon) }
                    },
                    accuracyMeters: row.accuracyM, fixTime: row.fixTime.flatMap(RFC3339.parse))
            }
        }
    }

    /// The player and photo of check-in `id`.
    public func photo(ofCheckIn id: Int64) async throws -> CheckInPhoto? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT player_id, photo_file FROM checkins WHERE id = ?", arguments: [id]
            )
            .map { row in CheckInPhoto(playerID: PlayerID(row[0] as Int64), photoFile: row[1]) }
        }
    }

    /// Check-in `id` as it was submitted.
    public func reviewSubject(_ id: Int64) async throws -> ReviewSubject? {
        try await read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT player_id, received_at, source, hunt_id, lat, lon, accuracy_m, fix_epoch, photo_file, state,
                        rules, answer_right
                    FROM checkin_state WHERE id = ?
                    """, arguments: [id]
            ).map { row in
                let lat: Double? = row[4]
                let lon: Double? = row[5]
                let epoch: Double? = row[7]
                let rules: String = row[10]
                var subject = ReviewSubject(
                    id: id, playerID: PlayerID(row[0] as Int64),
                    receivedAt: RFC3339.parse(row[1] as String) ?? Date(timeIntervalSince1970: 0),
                    source: FixSource(rawValue: row[2] as String) ?? .photo, huntID: row[3],
                    position: lat.flatMap { lat in
                        lon.flatMap { try? Coordinate(latitude: lat, longitude: $0) }
                    },
                    accuracyMeters: row[6], fixTime: epoch.map(Date.init(timeIntervalSince1970:)),
                    photoFile: row[8], state: try CheckInStateSQL.state(row[9], path: self.path),
                    failedRules: ReviewSubject.failedRules(rulesJSON: rules))
                subject.codeChecked = ReviewSubject.passed(.code, rulesJSON: rules)
                subject.answerChecked = (row[11] as Int64?).map { $0 == 1 }
                return subject
            }
        }
    }

    /// The facts the rules would see for `submission` now, on a reader connection.
    public func facts(for submission: Submission) async throws -> CheckInFacts {
        let (perceptual, huntCache) = (self.perceptual, self.huntCache)
        return try await read { db in
            try CheckInFacts.gather(
                for: submission, from: TransactionHistory(db, perceptual: perceptual, huntCache: huntCache))
        }
    }

    /// Records a moderator's decision as a `reviews` row (append-only) and rescores the player.
    public func review(
        _ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String, at now: Date
    )
        async throws -> ReviewOutcome
    {
        let reason = try ReviewDecision.validReason(reason)
        return try await write { db in
            let before = try Self.checkInState(db, id, required: decision.requiredState)
            let pointsBefore = try Self.totalPoints(db, before.playerID)
            try Self.insertReview(db, id, decision, reason: reason, moderator: moderator, at: now)
            try Self.rescore(db, playerID: PlayerID(before.playerID))
            return try Self.outcome(db, id, of: before, pointsBefore: pointsBefore)
        }
    }

    /// Overturns rejected check-in `id`: its evidence recorded again as a check-in that names it
    /// in `overturns`, decided now and approved, in one IMMEDIATE transaction.
    public func overturn(
        _ id: Int64, as submission: Submission, photoFile: String?, decide: @escaping CheckInDecider,
        reason: String, moderator: String, at now: Date
    ) async throws -> ReviewOutcome {
        let reason = try ReviewDecision.validReason(reason)
        return try await write { db in
            let before = try Self.checkInState(db, id, required: .rejected)
            if let by = try Int64.fetchOne(
                db, sql: "SELECT id FROM checkins WHERE overturns = ?", arguments: [id])
            {
                throw LeagueError.overturned(id: id, by: by)
            }
            let pointsBefore = try Self.totalPoints(db, before.playerID)
            let history = TransactionHistory(db, perceptual: self.perceptual, huntCache: self.huntCache)
            let decision = decide(submission, try CheckInFacts.gather(for: submission, from: history))
            let copy = try Self.insert(
                db, submission, decision: decision, photoFile: photoFile, overturns: id)
            try Self.insertReview(db, copy, .approved, reason: reason, moderator: moderator, at: now)
            try Self.rescore(db, playerID: PlayerID(before.playerID))
            var outcome = try Self.outcome(db, copy, of: before, pointsBefore: pointsBefore)
            (outcome.checkInID, outcome.recordedAs) = (id, copy)
            return outcome
        }
    }

    private static let stateSQL = """
        SELECT c.state, c.player_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id
        WHERE c.id = ?
        """

    /// Check-in `id`'s state and player, when it is in the `required` state.
    private static func checkInState(_ db: Database, _ id: Int64, required: CheckInState) throws
        -> CheckInStateRow
    {
        guard let row = try CheckInStateRow.fetchOne(db, sql: stateSQL, arguments: [id]) else {
            throw LeagueError.unknownCheckIn(id: id)
        }
        guard row.state == required else {
            throw LeagueError.checkInState(id: id, state: row.state, required: required)
        }
        return row
    }

    private static func totalPoints(_ db: Database, _ player: Int64) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COALESCE(SUM(points), 0) FROM score_events WHERE player_id = ?",
            arguments: [player]
        ) ?? 0
    }

    private static func insertReview(
        _ db: Database, _ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String,
        at now: Date
    ) throws {
        try db.execute(
            sql:
                "INSERT INTO reviews(checkin_id, decision, reason, moderator, decided_at) VALUES (?, ?, ?, ?, ?)",
            arguments: [id, decision.rawValue, reason, moderator, RFC3339.format(now)])
    }

    /// What a decision did: check-in `id`'s state after it, and the player's points then and now.
    private static func outcome(_ db: Database, _ id: Int64, of before: CheckInStateRow, pointsBefore: Int)
        throws -> ReviewOutcome
    {
        let after = try CheckInStateRow.fetchOne(db, sql: stateSQL, arguments: [id])!
        let pointsAfter = try totalPoints(db, before.playerID)
        return ReviewOutcome(
            checkInID: id, playerID: PlayerID(before.playerID), player: after.name, state: after.state,
            pointsChange: pointsAfter - pointsBefore, playerPoints: pointsAfter)
    }
}
