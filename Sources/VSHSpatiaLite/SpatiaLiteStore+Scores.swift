import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Hunts and badges as scoring needs them, read from the synced definitions.
    static func scoringCatalog(_ db: Database) throws -> (hunts: [ScoringHunt], badges: [Badge]) {
        var hunts: [ScoringHunt] = []
        // Read by every group of check-ins: cached statements (see `session(tokenHash:at:)`).
        for row in try ScoringHuntRow.fetchAll(
            db.cachedStatement(
                sql: "SELECT id, bonus_points, difficulty, ordered, timezone FROM hunts ORDER BY position"))
        {
            let stops = try StopPointsRow.fetchAll(
                db.cachedStatement(sql: "SELECT id, points FROM stops WHERE hunt_id = ? ORDER BY position"),
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
            db.cachedStatement(
                sql: "SELECT id, name, description, points, rule FROM badges ORDER BY position")
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
            db.cachedStatement(
                sql: """
                    SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch FROM checkin_state
                    WHERE player_id = ? AND verdict IN ('accepted', 'pending') AND state = 'accepted' AND stop_id IS NOT NULL
                        AND hunt_id IS NOT NULL AND fix_epoch IS NOT NULL
                    """),
            arguments: [playerID]
        ).map(\.checkIn)
        let events = Scoring.events(for: checkIns, hunts: definitions.hunts, badges: definitions.badges)
        try db.cachedStatement(sql: "DELETE FROM score_events WHERE player_id = ?").execute(arguments: [
            playerID
        ])
        try insertEvents(db, playerID: playerID, events)
        try writeTotals(db, playerID: playerID, events)
        return events
    }

    /// Scores a player's check-ins `newIDs`, just recorded as accepted: incrementally when they
    /// come after every earlier check-in of theirs that can count (by fix time, then id), which
    /// leaves the earlier events as they are (`Scoring.eventsAfter`, from the stored events, one
    /// new check-in after the other in that order: a player with thousands of check-ins is not
    /// read again, nor one with several in a server's group); otherwise, or when a badge needs
    /// the earlier check-ins themselves, by `rescore`.
    /// - Returns: the new events (incremental), or all of the player's (a rescore); callers pick
    ///   the new check-ins' by id.
    static func scoreAccepted(
        _ db: Database, playerID player: PlayerID, newIDs: [Int64],
        catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil
    ) throws -> [ScoreEvent] {
        let definitions = try catalog ?? scoringCatalog(db)
        if let events = try incrementalEvents(db, player: player, newIDs: newIDs, definitions: definitions) {
            return events
        }
        return try rescore(db, playerID: player, catalog: definitions)
    }

    /// `scoreAccepted`'s incremental path, written; nil (nothing written) when it does not apply.
    private static func incrementalEvents(
        _ db: Database, player: PlayerID, newIDs: [Int64],
        definitions: (hunts: [ScoringHunt], badges: [Badge])
    ) throws -> [ScoreEvent]? {
        let playerID = player.rawValue
        let fresh = Set(newIDs)
        guard !fresh.isEmpty else { return nil }
        // The new check-ins, in the order scoring takes them.
        var added: [ScoredCheckIn] = []
        for newID in fresh {
            let rows = try ScoredRow.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch FROM checkin_state
                        WHERE id = ? AND player_id = ?
                            AND state = 'accepted' AND stop_id IS NOT NULL AND hunt_id IS NOT NULL AND fix_epoch IS NOT NULL
                        """), arguments: [newID, playerID]
            ).map(\.checkIn)
            guard rows.count == 1 else { return nil }
            added += rows
        }
        added.sort { ($0.time, $0.id) < ($1.time, $1.id) }
        let checkIn = added[0]
        // The latest earlier check-in that could count (accepted or pending, whatever a moderator
        // made of it since): through the live check-ins index, newest first.
        let latest = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, fix_epoch FROM checkins WHERE player_id = ? AND verdict IN ('accepted', 'pending')
                        AND fix_epoch IS NOT NULL ORDER BY fix_epoch DESC LIMIT ?
                    """), arguments: [playerID, fresh.count + 1]
        ).first { !fresh.contains($0[0]) }
        if let latest {
            let (id, epoch): (Int64, Double) = (latest[0], latest[1])
            guard (epoch, id) < (checkIn.time.timeIntervalSince1970, checkIn.id) else { return nil }
        }
        let earlier = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT kind, hunt_id, stop_id, badge_id, points, at_epoch, checkin_id FROM score_events
                    WHERE player_id = ? ORDER BY id
                    """), arguments: [playerID]
        ).map { row -> ScoreEvent? in
            guard let kind = ScoreEvent.Kind(rawValue: row[0]) else { return nil }
            return ScoreEvent(
                kind: kind, huntID: row[1], stopID: row[2], badgeID: row[3], points: row[4],
                at: Date(timeIntervalSince1970: row[5]), checkInID: row[6])
        }
        guard !earlier.contains(where: { $0 == nil }) else { return nil }
        var before = earlier.compactMap { $0 }
        let (hunts, badges) = definitions
        var written: [ScoreEvent] = []
        for (index, checkIn) in added.enumerated() {
            // A badge of days in a row not yet earned: the earlier check-ins of the days before this
            // one's (local days are at most 14 hours from UTC's, so 15 hours on each side of them
            // holds them all), not the new ones that come after it.
            var days: Set<Int>?
            if let range = Scoring.localDaysNeeded(before, adding: checkIn, hunts: hunts, badges: badges) {
                let later = Set(added[(index + 1)...].map(\.id))
                let candidates = try ScoredRow.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch FROM checkin_state
                            WHERE player_id = ? AND verdict IN ('accepted', 'pending') AND state = 'accepted'
                                AND stop_id IS NOT NULL AND hunt_id IS NOT NULL AND fix_epoch IS NOT NULL AND id <> ?
                                AND coalesce(clock_epoch, fix_epoch) BETWEEN ? AND ?
                            """),
                    arguments: [
                        playerID, checkIn.id, Double(range.lowerBound) * 86_400 - 54_000,
                        Double(range.upperBound + 1) * 86_400 + 54_000,
                    ]
                ).map(\.checkIn).filter { !later.contains($0.id) }
                days = Scoring.localDays(of: candidates, hunts: hunts).filter(range.contains)
            }
            guard
                let events = Scoring.eventsAfter(
                    before, adding: checkIn, hunts: hunts, badges: badges, earlierLocalDays: days)
            else { return nil }
            before += events
            written += events
        }
        try insertEvents(db, playerID: playerID, written)
        try writeTotals(db, playerID: playerID, before)
        return written
    }

    static func insertEvents(_ db: Database, playerID: Int64, _ events: [ScoreEvent]) throws {
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
    }

    /// The running totals the all-time leaderboard reads (same sums as the events'; `vsh doctor` checks).
    static func writeTotals(_ db: Database, playerID: Int64, _ events: [ScoreEvent]) throws {
        if events.isEmpty {
            try db.cachedStatement(sql: "DELETE FROM player_scores WHERE player_id = ?").execute(arguments: [
                playerID
            ])
        } else {
            let count = { (kind: ScoreEvent.Kind) in events.filter { $0.kind == kind }.count }
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO player_scores VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [
                    playerID, events.reduce(0) { $0 + $1.points }, count(.bonus), count(.stop), count(.badge),
                    events.map(\.at.timeIntervalSince1970).max()!,
                ])
        }
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
