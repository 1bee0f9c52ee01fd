import Foundation
internal import Logging
internal import PostgresNIO
public import VSHCore
import VSHSQL

extension PostGISStore {
    /// Hunts and badges as scoring needs them.
    func scoringCatalog(_ db: PostgresConnection) async throws -> (hunts: [ScoringHunt], badges: [Badge]) {
        var stopsByHunt: [String: [(id: String, points: Int)]] = [:]
        var answerPoints: [String: [String: Int]] = [:]
        for row in try await db.query(
            "SELECT hunt_id, id, points, secrets FROM stops ORDER BY hunt_id, position", logger: logger
        )
        .collect() {
            let (hunt, stop, points, secrets) = try row.decode((String, String, Int, String?).self)
            stopsByHunt[hunt, default: []].append((stop, points))
            if let points = StoredStopSecrets.answerPoints(secrets) {
                answerPoints[hunt, default: [:]][stop] = points
            }
        }
        var hunts: [ScoringHunt] = []
        for row in try await db.query(
            "SELECT id, bonus_points, difficulty, ordered, timezone FROM hunts ORDER BY position",
            logger: logger
        ).collect() {
            let (id, bonus, difficulty, ordered, timezone) = try row.decode(
                (String, Int, String, Bool, String).self)
            var hunt = ScoringHunt(
                id: id, stops: stopsByHunt[id] ?? [], bonusPoints: bonus,
                difficulty: Hunt.Difficulty(rawValue: difficulty) ?? .medium, ordered: ordered,
                timeZone: TimeZone(identifier: timezone) ?? TimeZone(identifier: "UTC")!)
            hunt.answerPoints = answerPoints[id] ?? [:]
            hunts.append(hunt)
        }
        let rows = try await db.query(
            "SELECT id, name, description, points, rule FROM badges ORDER BY position", logger: logger
        ).collect().map { row in
            let (id, name, description, points, rule) = try row.decode(
                (String, String, String, Int, String).self)
            return (id: id, name: name, description: description, points: points, rule: rule)
        }
        return (hunts, BadgeFile.badges(fromRows: rows, huntIDs: Set(hunts.map(\.id))))
    }

    /// Recomputes one player's score events from their accepted check-ins (the caller holds the
    /// player's lock) and their running totals.
    @discardableResult
    func rescore(
        _ db: PostgresConnection, player: PlayerID, catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil
    ) async throws -> [ScoreEvent] {
        try await rescore(db, players: [player], catalog: catalog)[player] ?? []
    }

    /// Recomputes these players' score events and running totals (the caller holds their locks):
    /// five statements whatever the number of players.
    @discardableResult
    func rescore(
        _ db: PostgresConnection, players: [PlayerID],
        catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil,
        teams: Bool = true
    ) async throws -> [PlayerID: [ScoreEvent]] {
        guard !players.isEmpty else { return [:] }
        let definitions: (hunts: [ScoringHunt], badges: [Badge])
        if let catalog { definitions = catalog } else { definitions = try await scoringCatalog(db) }
        let ids = players.map(\.rawValue)
        var checkIns: [PlayerID: [ScoredCheckIn]] = [:]
        for row in try await db.query(
            """
            SELECT s.player_id, s.id, s.hunt_id, s.stop_id, s.fix_epoch, c.clock_epoch, c.answer_right
            FROM checkin_state s JOIN checkins c ON c.id = s.id
            WHERE s.player_id = ANY(\(ids)::int8[]) AND \(unescaped: CheckInStateSQL.canCount("s.")) AND \(unescaped: CheckInStateSQL.counts("s."))
                AND s.stop_id IS NOT NULL AND s.hunt_id IS NOT NULL AND s.fix_epoch IS NOT NULL
            """, logger: logger
        ).collect() {
            let (player, id, hunt, stop, epoch, clock, answer) = try row.decode(
                (Int64, Int64, String, String, Double, Double?, Int64?).self)
            checkIns[PlayerID(player), default: []].append(
                ScoredCheckIn(
                    id: id, huntID: hunt, stopID: stop, time: Date(timeIntervalSince1970: epoch),
                    clock: clock.map(Date.init(timeIntervalSince1970:)), answered: answer == 1))
        }
        var events: [PlayerID: [ScoreEvent]] = [:]
        var rows: [(player: Int64, event: ScoreEvent)] = []
        var totals:
            [(player: Int64, points: Int64, hunts: Int64, stops: Int64, badges: Int64, reached: Double)] = []
        for player in players {
            let earned = Scoring.events(
                for: checkIns[player] ?? [], hunts: definitions.hunts, badges: definitions.badges)
            events[player] = earned
            rows += earned.map { (player.rawValue, $0) }
            if let total = Self.totals(player, earned) { totals.append(total) }
        }
        try await db.query("DELETE FROM score_events WHERE player_id = ANY(\(ids)::int8[])", logger: logger)
        try await db.query(
            """
            DELETE FROM player_scores WHERE player_id = ANY(\(ids)::int8[])
                AND player_id <> ALL(\(totals.map(\.player))::int8[])
            """, logger: logger)
        if !rows.isEmpty { try await insertEvents(db, rows) }
        if !totals.isEmpty { try await upsertTotals(db, totals) }
        try await replaceHuntTotals(db, events)
        // Every team their check-ins counted for: a review may have changed any of them.
        if teams {
            try await rescoreTeams(
                db,
                db.query(
                    "SELECT DISTINCT team_id FROM checkins WHERE player_id = ANY(\(ids)::int8[]) AND team_id IS NOT NULL",
                    logger: logger
                ).collect().map { try $0.decode(Int64.self) }, catalog: definitions)
        }
        return events
    }

    /// Recomputes these teams' running totals (`team_scores`, `TeamBoard.totals`) from their
    /// members' accepted check-ins recorded with them, banned players' left out, under the teams'
    /// locks (taken in order): three statements whatever the number of teams.
    func rescoreTeams(
        _ db: PostgresConnection, _ teams: [Int64], catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil
    ) async throws {
        let teams = Array(Set(teams)).sorted()
        guard !teams.isEmpty else { return }
        let definitions: (hunts: [ScoringHunt], badges: [Badge])
        if let catalog { definitions = catalog } else { definitions = try await scoringCatalog(db) }
        try await db.query(
            "SELECT pg_advisory_xact_lock(k) FROM unnest(\(teams.map(Lock.team))::int8[]) WITH ORDINALITY AS l(k, n) ORDER BY n",
            logger: logger)
        var hunts: [Int64: String] = [:]
        var checkIns: [Int64: [ScoredCheckIn]] = [:]
        for row in try await db.query(
            "SELECT id, hunt_id FROM teams WHERE id = ANY(\(teams)::int8[])", logger: logger
        ).collect() {
            let (team, hunt) = try row.decode((Int64, String).self)
            hunts[team] = hunt
        }
        for row in try await db.query(
            """
            SELECT c.team_id, s.id, s.hunt_id, s.stop_id, s.fix_epoch, c.clock_epoch, c.answer_right
            FROM checkins c JOIN checkin_state s ON s.id = c.id JOIN players p ON p.id = s.player_id
            WHERE c.team_id = ANY(\(teams)::int8[]) AND p.banned = 0
                AND \(unescaped: CheckInStateSQL.canCount("s.")) AND \(unescaped: CheckInStateSQL.counts("s."))
                AND s.stop_id IS NOT NULL AND s.hunt_id IS NOT NULL AND s.fix_epoch IS NOT NULL
            """, logger: logger
        ).collect() {
            let (team, id, hunt, stop, epoch, clock, answer) = try row.decode(
                (Int64, Int64, String, String, Double, Double?, Int64?).self)
            checkIns[team, default: []].append(
                ScoredCheckIn(
                    id: id, huntID: hunt, stopID: stop, time: Date(timeIntervalSince1970: epoch),
                    clock: clock.map(Date.init(timeIntervalSince1970:)), answered: answer == 1))
        }
        let scoring = Dictionary(definitions.hunts.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var rows: [(team: Int64, hunt: String, totals: TeamTotals)] = []
        for team in teams {
            guard let hunt = hunts[team], let definition = scoring[hunt],
                let totals = TeamBoard.totals(
                    checkIns[team] ?? [], hunt: definition, badges: definitions.badges)
            else { continue }
            rows.append((team, hunt, totals))
        }
        try await db.query("DELETE FROM team_scores WHERE team_id = ANY(\(teams)::int8[])", logger: logger)
        guard !rows.isEmpty else { return }
        try await db.query(
            """
            INSERT INTO team_scores(team_id, hunt_id, points, stops, completed, badges, reached)
            SELECT * FROM unnest(\(rows.map(\.team))::int8[], \(rows.map(\.hunt))::text[],
                \(rows.map { Int64($0.totals.points) })::int8[], \(rows.map { Int64($0.totals.stops) })::int8[],
                \(rows.map { Int64($0.totals.completed ? 1 : 0) })::int8[], \(rows.map(\.totals.badgeColumn))::text[],
                \(rows.map(\.totals.reached))::float8[])
            """, logger: logger)
    }

    /// Recomputes the running totals of every team (after the definitions changed), 500 teams a
    /// round.
    func rescoreAllTeams(_ db: PostgresConnection, catalog: (hunts: [ScoringHunt], badges: [Badge])? = nil)
        async throws
    {
        let definitions: (hunts: [ScoringHunt], badges: [Badge])
        if let catalog { definitions = catalog } else { definitions = try await scoringCatalog(db) }
        try await db.query("DELETE FROM team_scores", logger: logger)
        let teams = try await db.query("SELECT id FROM teams ORDER BY id", logger: logger).collect().map {
            try $0.decode(Int64.self)
        }
        for start in stride(from: 0, to: teams.count, by: 500) {
            try await rescoreTeams(
                db, Array(teams[start..<min(start + 500, teams.count)]), catalog: definitions)
        }
    }

    /// Replaces players' running totals in each hunt (a hunt's board's rows) with those of all of
    /// their events, in two statements.
    func replaceHuntTotals(_ db: PostgresConnection, _ events: [PlayerID: [ScoreEvent]]) async throws {
        guard !events.isEmpty else { return }
        var rows: [(player: Int64, hunt: String, totals: ScoreTotals)] = []
        for (player, earned) in events {
            for (hunt, totals) in ScoreTotals.byHunt(earned) { rows.append((player.rawValue, hunt, totals)) }
        }
        try await db.query(
            "DELETE FROM hunt_scores WHERE player_id = ANY(\(events.keys.map(\.rawValue))::int8[])",
            logger: logger)
        guard !rows.isEmpty else { return }
        try await db.query(
            """
            INSERT INTO hunt_scores(player_id, hunt_id, points, hunts, stops, badges, reached)
            SELECT * FROM unnest(\(rows.map(\.player))::int8[], \(rows.map(\.hunt))::text[],
                \(rows.map { Int64($0.totals.points) })::int8[], \(rows.map { Int64($0.totals.hunts) })::int8[],
                \(rows.map { Int64($0.totals.stops) })::int8[], \(rows.map { Int64($0.totals.badges) })::int8[],
                \(rows.map(\.totals.reached))::float8[])
            """, logger: logger)
    }

    /// Inserts players' events, each player's in their order, in one statement (arrays unnested
    /// in order; "" stands for no stop or badge).
    func insertEvents(_ db: PostgresConnection, _ rows: [(player: Int64, event: ScoreEvent)]) async throws {
        let all = rows.map(\.event)
        try await db.query(
            """
            INSERT INTO score_events(player_id, kind, hunt_id, stop_id, badge_id, points, at, at_epoch, checkin_id)
            SELECT p, k, h, NULLIF(s, ''), NULLIF(b, ''), n, a, e, c
            FROM unnest(\(rows.map(\.player))::int8[], \(all.map(\.kind.rawValue))::text[], \(all.map(\.huntID))::text[],
                \(all.map { $0.stopID ?? "" })::text[], \(all.map { $0.badgeID ?? "" })::text[],
                \(all.map { Int64($0.points) })::int8[], \(all.map { RFC3339.format($0.at) })::text[],
                \(all.map(\.at.timeIntervalSince1970))::float8[], \(all.map(\.checkInID))::int8[])
                AS t(p, k, h, s, b, n, a, e, c)
            """, logger: logger)
    }

    /// A player's running totals from all of their events (nil without any).
    static func totals(_ player: PlayerID, _ events: [ScoreEvent])
        -> (player: Int64, points: Int64, hunts: Int64, stops: Int64, badges: Int64, reached: Double)?
    {
        guard let totals = ScoreTotals(events) else { return nil }
        return (
            player.rawValue, Int64(totals.points), Int64(totals.hunts), Int64(totals.stops),
            Int64(totals.badges),
            totals.reached
        )
    }

    /// Writes players' running totals (the all-time board's), in one statement.
    func upsertTotals(
        _ db: PostgresConnection,
        _ totals: [(player: Int64, points: Int64, hunts: Int64, stops: Int64, badges: Int64, reached: Double)]
    ) async throws {
        try await db.query(
            """
            INSERT INTO player_scores(player_id, points, hunts, stops, badges, reached)
            SELECT * FROM unnest(\(totals.map(\.player))::int8[], \(totals.map(\.points))::int8[],
                \(totals.map(\.hunts))::int8[], \(totals.map(\.stops))::int8[], \(totals.map(\.badges))::int8[],
                \(totals.map(\.reached))::float8[])
            ON CONFLICT (player_id) DO UPDATE SET points = excluded.points, hunts = excluded.hunts,
                stops = excluded.stops, badges = excluded.badges, reached = excluded.reached
            """, logger: logger)
    }

    /// Recomputes everyone's score events (the caller holds the catalogue lock exclusively).
    func rescoreEveryone(_ db: PostgresConnection) async throws {
        let catalog = try await scoringCatalog(db)
        try await db.query("DELETE FROM score_events", logger: logger)
        try await db.query("DELETE FROM player_scores", logger: logger)
        try await db.query("DELETE FROM hunt_scores", logger: logger)
        let players = try await db.query(
            "SELECT DISTINCT player_id FROM checkins ORDER BY player_id", logger: logger
        ).collect().map { PlayerID(try $0.decode(Int64.self)) }
        for start in stride(from: 0, to: players.count, by: 500) {
            try await rescore(
                db, players: Array(players[start..<min(start + 500, players.count)]), catalog: catalog,
                teams: false)
        }
        try await rescoreAllTeams(db, catalog: catalog)
    }

    /// Recomputes every player's points, completions and badges in one transaction.
    public func rescoreEveryone() async throws {
        try await transaction { db in
            try await db.query("SELECT pg_advisory_xact_lock(\(Lock.catalogue))", logger: self.logger)
            try await self.rescoreEveryone(db)
        }
    }

    /// Players and points from the hunt's score events (or the stop's stop points).
    public func pointsHeld(hunt huntID: String, stop stopID: String?) async throws -> PointsHeld {
        try await read { db in
            let row = try await db.query(
                """
                SELECT COUNT(DISTINCT player_id)::int8, COALESCE(SUM(points), 0)::int8 FROM score_events
                WHERE hunt_id = \(huntID) AND (\(stopID)::text IS NULL OR (kind = 'stop' AND stop_id = \(stopID)))
                """, logger: self.logger
            ).collect().first
            let (players, points) = try row?.decode((Int, Int).self) ?? (0, 0)
            return PointsHeld(players: players, points: points)
        }
    }

    // MARK: leaderboard, profile, collage

    /// Rankings: the running totals for the all-time board, else a grouping of `score_events`.
    public func leaderboard(_ query: LeaderboardQuery) async throws -> [LeaderboardEntry] {
        let (huntID, since, until) = (query.huntID, query.since, query.until)
        let limit = Int64(query.limit ?? Int.max)
        return try await read { db in
            if let huntID,
                try await db.query("SELECT 1 FROM hunts WHERE id = \(huntID)", logger: self.logger).collect()
                    .isEmpty
            {
                throw LeagueError.unknownHunt(id: huntID, known: try await self.huntIDs(db))
            }
            let rows: [PostgresRow]
            // Organisers' adjustments count beside the events check-ins earned (none: the events only).
            let adjusted =
                try await db.query(
                    "SELECT EXISTS (SELECT 1 FROM adjustments WHERE player_id IS NOT NULL)",
                    logger: self.logger
                ).collect().first?.decode(Bool.self) ?? false
            let events =
                adjusted
                ? """
                (SELECT player_id, kind, hunt_id, points, at_epoch FROM score_events
                 UNION ALL SELECT player_id, 'adjustment', hunt_id, points, at_epoch FROM adjustments
                 WHERE player_id IS NOT NULL)
                """ : "score_events"
            if huntID == nil && since == nil && until == nil && !adjusted {
                rows = try await db.query(
                    """
                    SELECT p.id, p.name, s.points, s.hunts, s.stops, s.badges, s.reached
                    FROM player_scores s JOIN players p ON p.id = s.player_id
                    WHERE p.banned = 0
                    ORDER BY s.points DESC, s.reached ASC, p.name_key ASC
                    LIMIT \(limit)
                    """, logger: self.logger
                ).collect()
            } else if let huntID, since == nil && until == nil && !adjusted {
                // A hunt's board: its running totals, one row a player.
                rows = try await db.query(
                    """
                    SELECT p.id, p.name, s.points, s.hunts, s.stops, s.badges, s.reached
                    FROM hunt_scores s JOIN players p ON p.id = s.player_id
                    WHERE s.hunt_id = \(huntID) AND p.banned = 0
                    ORDER BY s.points DESC, s.reached ASC, p.name_key ASC
                    LIMIT \(limit)
                    """, logger: self.logger
                ).collect()
            } else {
                let (sinceEpoch, untilEpoch) = (since?.timeIntervalSince1970, until?.timeIntervalSince1970)
                rows = try await db.query(
                    """
                    SELECT p.id, p.name, SUM(e.points)::int8 AS points, COUNT(*) FILTER (WHERE e.kind = 'bonus') AS hunts,
                        COUNT(*) FILTER (WHERE e.kind = 'stop') AS stops, COUNT(*) FILTER (WHERE e.kind = 'badge') AS badges,
                        MAX(e.at_epoch) AS reached
                    FROM \(unescaped: events) e JOIN players p ON p.id = e.player_id
                    WHERE (\(huntID)::text IS NULL OR e.hunt_id = \(huntID))
                      AND (\(sinceEpoch)::float8 IS NULL OR e.at_epoch >= \(sinceEpoch))
                      AND (\(untilEpoch)::float8 IS NULL OR e.at_epoch < \(untilEpoch))
                      AND p.banned = 0
                    GROUP BY p.id, p.name, p.name_key
                    ORDER BY points DESC, reached ASC, p.name_key ASC
                    LIMIT \(limit)
                    """, logger: self.logger
                ).collect()
            }
            let decoded = try rows.map { try $0.decode((Int64, String, Int, Int, Int, Int, Double).self) }
            let ranks = Ranking.competition(points: decoded.map(\.2))
            return zip(ranks, decoded).map { rank, row in
                LeaderboardEntry(
                    rank: rank, playerID: PlayerID(row.0), player: row.1, points: row.2,
                    huntsCompleted: row.3,
                    stopsVisited: row.4, badges: row.5, reachedAt: Date(timeIntervalSince1970: row.6))
            }
        }
    }

    func huntIDs(_ db: PostgresConnection) async throws -> [String] {
        try await db.query("SELECT id FROM hunts ORDER BY position", logger: logger).collect().map {
            try $0.decode(String.self)
        }
    }

    /// A player's totals, per-hunt progress, badges and latest check-ins.
    public func profile(player: PlayerID, recent: Int, acceptedOnly: Bool) async throws -> PlayerProfile {
        try await read { db in
            guard let record = try await self.playerRecord(db, id: player) else {
                throw LeagueError.unknownPlayerID(player)
            }
            let id = player.rawValue
            let totals =
                try await db.query(
                    """
                    SELECT COALESCE(SUM(points), 0)::int8, COUNT(*) FILTER (WHERE kind = 'stop'),
                        COUNT(*) FILTER (WHERE kind = 'bonus')
                    FROM score_events WHERE player_id = \(id)
                    """, logger: self.logger
                ).collect().first?.decode((Int, Int, Int).self) ?? (0, 0, 0)
            var hunts: [PlayerProfile.HuntProgress] = []
            for row in try await db.query(
                """
                SELECT h.id, h.name, (SELECT COUNT(*) FROM stops s WHERE s.hunt_id = h.id),
                    (SELECT COUNT(*) FROM score_events e WHERE e.player_id = \(id) AND e.hunt_id = h.id AND e.kind = 'stop'),
                    (SELECT MIN(at_epoch) FROM score_events e WHERE e.player_id = \(id) AND e.hunt_id = h.id AND e.kind = 'bonus')
                FROM hunts h ORDER BY h.position
                """, logger: self.logger
            ).collect() {
                let (huntID, name, total, visited, completed) = try row.decode(
                    (String, String, Int, Int, Double?).self)
                hunts.append(
                    PlayerProfile.HuntProgress(
                        huntID: huntID, name: name, visited: visited, total: total,
                        completedAt: completed.map { Date(timeIntervalSince1970: $0) }))
            }
            let badges = try await db.query(
                """
                SELECT b.id, b.name, b.description, e.points, e.at_epoch, e.checkin_id
                FROM score_events e JOIN badges b ON b.id = e.badge_id
                WHERE e.player_id = \(id) AND e.kind = 'badge' ORDER BY e.at_epoch, b.position
                """, logger: self.logger
            ).collect().map { row in
                let (badgeID, name, description, points, at, checkIn) = try row.decode(
                    (String, String, String, Int, Double, Int64).self)
                return PlayerProfile.EarnedBadge(
                    id: badgeID, name: name, description: description, points: points,
                    earnedAt: Date(timeIntervalSince1970: at), checkInID: checkIn)
            }
            let latest = try await db.query(
                """
                SELECT c.id, c.received_at, c.hunt_id, c.stop_id, s.name, c.state, c.photo_file IS NOT NULL,
                    (SELECT COALESCE(SUM(points), 0)::int8 FROM score_events e WHERE e.checkin_id = c.id),
                    (SELECT reason FROM reviews r WHERE r.checkin_id = c.id ORDER BY r.id DESC LIMIT 1)
                FROM checkin_state c LEFT JOIN stops s ON s.id = c.stop_id
                WHERE c.player_id = \(id) AND (NOT \(acceptedOnly) OR \(unescaped: CheckInStateSQL.counts("c.")))
                ORDER BY c.id DESC LIMIT \(Int64(recent))
                """, logger: self.logger
            ).collect().map { row in
                let (checkIn, received, hunt, stop, stopName, state, hasPhoto, points, reason) =
                    try row.decode(
                        (Int64, String, String?, String?, String?, String, Bool, Int, String?).self)
                return PlayerProfile.RecentCheckIn(
                    id: checkIn, receivedAt: RFC3339.parse(received) ?? Date(timeIntervalSince1970: 0),
                    huntID: hunt, stopID: stop, stopName: stopName, state: try CheckInStateSQL.state(state),
                    points: points,
                    hasPhoto: hasPhoto, reason: reason)
            }
            return PlayerProfile(
                id: player, name: record.name, createdAt: record.createdAt, points: totals.0,
                stopsVisited: totals.1, huntsCompleted: totals.2, hunts: hunts, badges: badges, recent: latest
            )
        }
    }

    /// A hunt's stops with the player's first accepted photo at each.
    public func collagePlan(player: PlayerID, hunt huntID: String) async throws -> CollagePlan {
        try await read { db in
            guard try await self.playerNames(db, [player])[player] != nil else {
                throw LeagueError.unknownPlayerID(player)
            }
            let id = player.rawValue
            guard
                let huntName = try await db.query(
                    "SELECT name FROM hunts WHERE id = \(huntID)", logger: self.logger
                )
                .collect().first?.decode(String.self)
            else { throw LeagueError.unknownHunt(id: huntID, known: try await self.huntIDs(db)) }
            let tiles = try await db.query(
                """
                SELECT s.id, s.name,
                    EXISTS (SELECT 1 FROM checkin_state c WHERE c.player_id = \(id) AND c.stop_id = s.id AND \(unescaped: CheckInStateSQL.counts("c."))),
                    (SELECT c.photo_file FROM checkin_state c WHERE c.player_id = \(id) AND c.stop_id = s.id
                        AND \(unescaped: CheckInStateSQL.counts("c.")) AND c.photo_file IS NOT NULL ORDER BY c.fix_epoch, c.id LIMIT 1)
                FROM stops s WHERE s.hunt_id = \(huntID) ORDER BY s.position
                """, logger: self.logger
            ).collect().map { row in
                let (stop, name, visited, photo) = try row.decode((String, String, Bool, String?).self)
                return CollageTile(stopID: stop, stopName: name, visited: visited, photoFile: photo)
            }
            let complete = try await !db.query(
                "SELECT 1 FROM score_events WHERE player_id = \(id) AND hunt_id = \(huntID) AND kind = 'bonus' LIMIT 1",
                logger: self.logger
            ).collect().isEmpty
            return CollagePlan(huntName: huntName, tiles: tiles, complete: complete)
        }
    }
}
