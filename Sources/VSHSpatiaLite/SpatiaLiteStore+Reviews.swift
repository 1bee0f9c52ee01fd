public import Foundation
internal import GRDB
public import VSHCore

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
                    WHERE c.state = 'pending' ORDER BY c.id
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

    /// Records a moderator's decision as a `reviews` row (append-only) and rescores the player.
    public func review(
        _ id: Int64, _ decision: ReviewDecision, reason: String, moderator: String, at now: Date
    )
        async throws -> ReviewOutcome
    {
        let reason = try ReviewDecision.validReason(reason)
        return try await write { db in
            let select = """
                SELECT c.state, c.player_id, p.name FROM checkin_state c JOIN players p ON p.id = c.player_id
                WHERE c.id = ?
                """
            guard let before = try CheckInStateRow.fetchOne(db, sql: select, arguments: [id]) else {
                throw LeagueError.unknownCheckIn(id: id)
            }
            guard before.state == decision.requiredState else {
                throw LeagueError.checkInState(id: id, state: before.state, required: decision.requiredState)
            }
            let player = PlayerID(before.playerID)
            let total = "SELECT COALESCE(SUM(points), 0) FROM score_events WHERE player_id = ?"
            let pointsBefore = try Int.fetchOne(db, sql: total, arguments: [before.playerID]) ?? 0
            try db.execute(
                sql:
                    "INSERT INTO reviews(checkin_id, decision, reason, moderator, decided_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, decision.rawValue, reason, moderator, RFC3339.format(now)])
            try Self.rescore(db, playerID: player)
            let after = try CheckInStateRow.fetchOne(db, sql: select, arguments: [id])!
            let pointsAfter = try Int.fetchOne(db, sql: total, arguments: [before.playerID]) ?? 0
            return ReviewOutcome(
                checkInID: id, playerID: player, player: after.name, state: after.state,
                pointsChange: pointsAfter - pointsBefore, playerPoints: pointsAfter)
        }
    }
}
