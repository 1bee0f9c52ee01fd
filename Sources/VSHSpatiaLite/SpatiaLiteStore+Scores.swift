import Foundation
internal import GRDB
public import VSHCore
import VSHSQL

extension SpatiaLiteStore {
    /// Hunts and badges as scoring needs them, read from the synced definitions.
    static func scoringCatalog(_ db: Database) throws -> (hunts: [ScoringHunt], badges: [Badge]) {
        var hunts: [ScoringHunt] = []
        // Read by every group of check-ins: cached statements (see `session(tokenHash:at:)`).
        for row in try ScoringHuntRow.fetchAll(
            db.cachedStatement(
                sql: "SELECT id, bonus_points, difficulty, ordered, timezone FROM hunts ORDER BY position"))
        {
            let rows = try StopPointsRow.fetchAll(
                db.cachedStatement(
                    sql: "SELECT id, points, secrets FROM stops WHERE hunt_id = ? ORDER BY position"),
                arguments: [row.id])
            var hunt = ScoringHunt(
                id: row.id, stops: rows.map { (id: $0.id, points: $0.points) }, bonusPoints: row.bonusPoints,
                difficulty: Hunt.Difficulty(rawValue: row.difficulty) ?? .medium, ordered: row.ordered,
                timeZone: TimeZone(identifier: row.timezone) ?? TimeZone(identifier: "UTC")!)
            for stop in rows {
                if let points = StoredStopSecrets.answerPoints(stop.secrets) {
                    hunt.answerPoints[stop.id] = points
                }
            }
            hunts.append(hunt)
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
        _ db: Database, playerID player: PlayerID, catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil,
        teams: Bool = true
    ) throws -> [ScoreEvent] {
        let definitions = try catalog ?? scoringCatalog(db)
        let playerID = player.rawValue
        let checkIns = try ScoredRow.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch, answer_right FROM checkin_state
                    WHERE player_id = ? AND \(CheckInStateSQL.canCount()) AND \(CheckInStateSQL.counts()) AND stop_id IS NOT NULL
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
        // Every team their check-ins counted for: a review may have changed any of them.
        if teams {
            try rescoreTeams(
                db,
                Int64.fetchAll(
                    db.cachedStatement(
                        sql:
                            "SELECT DISTINCT team_id FROM checkins WHERE player_id = ? AND team_id IS NOT NULL"
                    ),
                    arguments: [playerID]), catalog: definitions)
        }
        return events
    }

    /// The teams check-ins `ids` counted for: new check-ins change no other team's score.
    private static func teams(_ db: Database, of ids: Set<Int64>) throws -> [Int64] {
        let statement = try RawStatement(db, "SELECT team_id FROM checkins WHERE id = ?")
        return try ids.compactMap { id in try statement.first([.integer(id)]) { $0.int64(0) } }
    }

    /// Recomputes these teams' running totals (`team_scores`, `TeamBoard.totals`) from their
    /// members' accepted check-ins recorded with them, banned players' left out.
    static func rescoreTeams(
        _ db: Database, _ teams: [Int64], catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil
    ) throws {
        guard !teams.isEmpty else { return }
        let definitions = try catalog ?? scoringCatalog(db)
        let hunts = Dictionary(definitions.hunts.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        for team in Set(teams).sorted() {
            try db.cachedStatement(sql: "DELETE FROM team_scores WHERE team_id = ?").execute(arguments: [team]
            )
            guard
                let huntID = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT hunt_id FROM teams WHERE id = ?"), arguments: [team]),
                let hunt = hunts[huntID]
            else { continue }
            let checkIns = try ScoredRow.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT s.id, s.hunt_id, s.stop_id, s.fix_epoch, c.clock_epoch, c.answer_right
                        FROM checkins c JOIN checkin_state s ON s.id = c.id JOIN players p ON p.id = s.player_id
                        WHERE c.team_id = ?1 AND s.hunt_id = ?2 AND p.banned = 0
                            AND \(CheckInStateSQL.canCount("s.")) AND \(CheckInStateSQL.counts("s."))
                            AND s.stop_id IS NOT NULL AND s.fix_epoch IS NOT NULL
                        """), arguments: [team, huntID]
            ).map(\.checkIn)
            guard let totals = TeamBoard.totals(checkIns, hunt: hunt, badges: definitions.badges) else {
                continue
            }
            try db.cachedStatement(sql: "INSERT INTO team_scores VALUES (?, ?, ?, ?, ?, ?, ?)").execute(
                arguments: [
                    team, huntID, totals.points, totals.stops, totals.completed ? 1 : 0, totals.badgeColumn,
                    totals.reached,
                ])
        }
    }

    /// Recomputes the running totals of every team (after the definitions changed).
    static func rescoreAllTeams(_ db: Database, catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil)
        throws
    {
        try db.execute(sql: "DELETE FROM team_scores")
        try rescoreTeams(db, Int64.fetchAll(db, sql: "SELECT id FROM teams"), catalog: catalog)
    }

    /// Scores a player's check-ins `newIDs`, just recorded as accepted, through the core's
    /// `ScoreLedger`: this store reads what it asks for (the new check-ins, the stored events, the
    /// latest earlier live check-in, the check-ins in a window of days) and writes what it decides,
    /// or rescores.
    /// - Returns: the new events (going on), or all of the player's (a rescore); callers pick the
    ///   new check-ins' by id.
    static func scoreAccepted(
        _ db: Database, playerID player: PlayerID, newIDs: [Int64],
        catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil, layout: Scoring.Layout? = nil
    ) throws -> [ScoreEvent] {
        let definitions = try catalog ?? scoringCatalog(db)
        let fresh = Set(newIDs)
        var ledger = ScoreLedger(
            player: player, added: try acceptedCheckIns(db, player: player, ids: fresh),
            stored: try storedEvents(db, player: player),
            latestEarlier: try latestLiveCheckIn(db, player: player, excluding: fresh),
            layout: layout ?? Scoring.Layout(hunts: definitions.hunts, badges: definitions.badges))
        while true {
            switch ledger.step {
            case .ask(let question):
                ledger.answer(try checkIns(db, player: player, clockWithin: question.window))
            case .rescore:
                let events = try rescore(db, playerID: player, catalog: definitions, teams: false)
                try rescoreTeams(db, teams(db, of: fresh), catalog: definitions)
                return events
            case .done(let new, let all):
                // No new event (a stop visited again): the totals kept are the stored events' sums
                // already, and writing them again dirtied two pages of the player's for each
                // such check-in.
                if !new.isEmpty {
                    try insertEvents(db, playerID: player.rawValue, new)
                    try writeTotals(db, playerID: player.rawValue, all)
                }
                try rescoreTeams(db, teams(db, of: fresh), catalog: definitions)
                return new
            }
        }
    }

    /// The check-ins `ids` of the player's that are accepted at a stop with a fix time; nil when
    /// one of them is not (nothing can go on from it).
    private static func acceptedCheckIns(_ db: Database, player: PlayerID, ids: Set<Int64>) throws
        -> [ScoredCheckIn]?
    {
        // Read for each accepted check-in of a group: through SQLite's C API (`RawStatement`).
        var found: [ScoredCheckIn] = []
        for id in ids {
            let rows = try ScoredRow.checkIns(
                db,
                """
                SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch, answer_right FROM checkin_state
                WHERE id = ? AND player_id = ?
                    AND \(CheckInStateSQL.counts()) AND stop_id IS NOT NULL AND hunt_id IS NOT NULL AND fix_epoch IS NOT NULL
                """, [.integer(id), .integer(player.rawValue)])
            guard rows.count == 1 else { return nil }
            found += rows
        }
        return found
    }

    /// The player's stored events in the order they were earned; nil when one has a kind this
    /// version does not know.
    private static func storedEvents(_ db: Database, player: PlayerID) throws -> [ScoreEvent]? {
        var events: [ScoreEvent] = []
        var known = true
        try RawStatement(
            db,
            """
            SELECT kind, hunt_id, stop_id, badge_id, points, at_epoch, checkin_id FROM score_events
            WHERE player_id = ? ORDER BY id
            """
        ).rows([.integer(player.rawValue)]) { row in
            // Every column but the stop and the badge is NOT NULL in the table.
            guard let kind = row.text(0).flatMap(ScoreEvent.Kind.init(rawValue:)), let hunt = row.text(1),
                let points = row.int64(4), let at = row.double(5), let checkIn = row.int64(6)
            else {
                known = false
                return false
            }
            events.append(
                ScoreEvent(
                    kind: kind, huntID: hunt, stopID: row.text(2), badgeID: row.text(3), points: Int(points),
                    at: Date(timeIntervalSince1970: at), checkInID: checkIn))
            return true
        }
        return known ? events : nil
    }

    /// The latest of the player's check-ins that could count (accepted or pending, whatever a
    /// moderator made of it since), other than `excluding`: through the live check-ins index.
    private static func latestLiveCheckIn(_ db: Database, player: PlayerID, excluding: Set<Int64>) throws
        -> (epoch: Double, id: Int64)?
    {
        var latest: (epoch: Double, id: Int64)?
        try RawStatement(
            db,
            """
            SELECT id, fix_epoch FROM checkins WHERE player_id = ? AND \(CheckInStateSQL.canCount())
                AND fix_epoch IS NOT NULL ORDER BY fix_epoch DESC LIMIT ?
            """
        ).rows([.integer(player.rawValue), .integer(Int64(excluding.count + 1))]) { row in
            guard let id = row.int64(0), let epoch = row.double(1), !excluding.contains(id) else {
                return true
            }
            latest = (epoch, id)
            return false
        }
        return latest
    }

    /// The player's accepted check-ins whose clock falls in a window (arguments: player, low,
    /// high): read through `checkins_live_by_clock` (v41), the window's rows alone, however long
    /// the player's history (`LiveByClockPlanTests`).
    static let checkInsInClockWindow = """
        SELECT id, hunt_id, stop_id, fix_epoch, clock_epoch, answer_right FROM checkin_state
        WHERE player_id = ? AND \(CheckInStateSQL.canCount()) AND coalesce(clock_epoch, fix_epoch) BETWEEN ? AND ?
            AND stop_id IS NOT NULL AND hunt_id IS NOT NULL AND fix_epoch IS NOT NULL AND \(CheckInStateSQL.counts())
        """

    /// The player's accepted check-ins whose clock falls in `window` (a ledger's question).
    private static func checkIns(_ db: Database, player: PlayerID, clockWithin window: ClosedRange<Double>)
        throws -> [ScoredCheckIn]
    {
        try ScoredRow.checkIns(
            db, checkInsInClockWindow,
            [.integer(player.rawValue), .real(window.lowerBound), .real(window.upperBound)])
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

    /// The running totals the leaderboards read (`ScoreTotals`: the events' sums; `vsh doctor`
    /// checks): all time (`player_scores`) and in each hunt (`hunt_scores`).
    static func writeTotals(_ db: Database, playerID: Int64, _ events: [ScoreEvent]) throws {
        try db.cachedStatement(sql: "DELETE FROM hunt_scores WHERE player_id = ?").execute(arguments: [
            playerID
        ])
        let insert = try db.cachedStatement(sql: "INSERT INTO hunt_scores VALUES (?, ?, ?, ?, ?, ?, ?)")
        for (hunt, totals) in ScoreTotals.byHunt(events) {
            try insert.execute(arguments: [
                playerID, hunt, totals.points, totals.hunts, totals.stops, totals.badges, totals.reached,
            ])
        }
        guard let totals = ScoreTotals(events) else {
            try db.cachedStatement(sql: "DELETE FROM player_scores WHERE player_id = ?").execute(arguments: [
                playerID
            ])
            return
        }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO player_scores VALUES (?, ?, ?, ?, ?, ?)")
            .execute(arguments: [
                playerID, totals.points, totals.hunts, totals.stops, totals.badges, totals.reached,
            ])
    }

    /// Recomputes everyone's score events (after the definitions changed).
    static func rescoreEveryone(_ db: Database) throws {
        let catalog = try scoringCatalog(db)
        try db.execute(sql: "DELETE FROM score_events; DELETE FROM player_scores; DELETE FROM hunt_scores")
        for id in try Int64.fetchAll(db, sql: "SELECT DISTINCT player_id FROM checkins") {
            try rescore(db, playerID: PlayerID(id), catalog: catalog, teams: false)
        }
        try rescoreAllTeams(db, catalog: catalog)
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
