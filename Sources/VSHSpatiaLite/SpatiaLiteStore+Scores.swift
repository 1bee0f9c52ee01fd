import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Hunts and badges as scoring needs them, read from the synced definitions.
    static func scoringCatalog(_ db: Database) throws -> (hunts: [ScoringHunt], badges: [Badge]) {
        var hunts: [ScoringHunt] = []
        for row in try ScoringHuntRow.fetchAll(
            db, sql: "SELECT id, bonus_points, difficulty, ordered, timezone FROM hunts ORDER BY position")
        {
            let stops = try StopPointsRow.fetchAll(
                db, sql: "SELECT id, points FROM stops WHERE hunt_id = ? ORDER BY position",
                arguments: [row.id]
            )
            .map { (id: $0.id, points: $0.points) }
            hunts.append(
                ScoringHunt(
                    id: row.id, stops: stops, bonusPoints: row.bonusPoints,
                    difficulty: Hunt.Difficulty(rawValue: row.difficulty) ?? .medium, ordered: row.ordered,
                    timeZone: TimeZone(identifier: row.timezone) ?? TimeZone(identifier: "UTC")!))
        }
        let rows = try BadgeRow.fetchAll(
            db, sql: "SELECT id, name, description, points, rule FROM badges ORDER BY position"
        ).map { (id: $0.id, name: $0.name, description: $0.description, points: $0.points, rule: $0.rule) }
        return (hunts, BadgeFile.badges(fromRows: rows, huntIDs: Set(hunts.map(\.id))))
    }

    /// Recomputes one player's score events from their accepted check-ins.
    /// - Returns: the events, in the order they were earned.
    @discardableResult
    static func rescore(
        _ db: Database, playerID player: PlayerID, catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil
    ) throws -> [ScoreEvent] {
        let definitions = try catalog ?? scoringCatalog(db)
        let playerID = player.rawValue
        let checkIns = try ScoredRow.fetchAll(
            db,
            sql: """
                SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch FROM checkin_state
                WHERE player_id = ? AND verdict IN ('accepted', 'pending') AND state = 'accepted' AND stop_id IS NOT NULL
                    AND hunt_id IS NOT NULL AND fix_epoch IS NOT NULL
                """,
            arguments: [playerID]
        ).map {
            ScoredCheckIn(
                id: $0.id, huntID: $0.huntID, stopID: $0.stopID,
                time: Date(timeIntervalSince1970: $0.fixEpoch),
                clock: $0.clockEpoch.map(Date.init(timeIntervalSince1970:)))
        }
        let events = Scoring.events(for: checkIns, hunts: definitions.hunts, badges: definitions.badges)
        try db.execute(sql: "DELETE FROM score_events WHERE player_id = ?", arguments: [playerID])
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO score_events(player_id, kind, hunt_id, stop_id, badge_id, points, at, at_epoch, checkin_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for e in events {
            try insert.execute(arguments: [
                playerID, e.kind.rawValue, e.huntID, e.stopID, e.badgeID, e.points, RFC3339.format(e.at),
                e.at.timeIntervalSince1970, e.checkInID,
            ])
        }
        // The running totals the all-time leaderboard reads (same sums as the events'; `vsh doctor` checks).
        if events.isEmpty {
            try db.execute(sql: "DELETE FROM player_scores WHERE player_id = ?", arguments: [playerID])
        } else {
            let count = { (kind: ScoreEvent.Kind) in events.filter { $0.kind == kind }.count }
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO player_scores VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [
                    playerID, events.reduce(0) { $0 + $1.points }, count(.bonus), count(.stop), count(.badge),
                    events.map(\.at.timeIntervalSince1970).max()!,
                ])
        }
        return events
    }

    /// Recomputes everyone's score events (after the definitions changed).
    static func rescoreEveryone(_ db: Database) throws {
        let catalog = try scoringCatalog(db)
        try db.execute(sql: "DELETE FROM score_events; DELETE FROM player_scores")
        for id in try Int64.fetchAll(db, sql: "SELECT DISTINCT player_id FROM checkins") {
            try rescore(db, playerID: PlayerID(id), catalog: catalog)
        }
    }

    /// Recomputes every player's points, completions and badges in one transaction.
    public func rescoreEveryone() async throws {
        try await write { db in try Self.rescoreEveryone(db) }
    }

    /// Players and points from the hunt's score events (or the stop's stop points).
    public func pointsHeld(hunt huntID: String, stop stopID: String?) async throws -> PointsHeld {
        try await read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(DISTINCT player_id), COALESCE(SUM(points), 0) FROM score_events
                    WHERE hunt_id = ?1 AND (?2 IS NULL OR (kind = 'stop' AND stop_id = ?2))
                    """, arguments: [huntID, stopID])
            return PointsHeld(players: row?[0] ?? 0, points: row?[1] ?? 0)
        }
    }
}
