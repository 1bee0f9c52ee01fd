public import Foundation
internal import PostgresNIO
public import VSHCore
internal import VSHSQL

extension PostGISStore {
    /// Makes a team; its founder (when given) is its first member.
    public func createTeam(huntID: String, name: String, joinCode: String, founder: PlayerID?, at now: Date)
        async throws -> Team
    {
        let at = RFC3339.format(now)
        let key = Team.nameKey(name)
        let id = try await transaction { db -> Int64 in
            // One team of a name a hunt: the unique index decides between two at once.
            let rows = try await db.query(
                """
                INSERT INTO teams(hunt_id, name, name_key, join_code, created_at)
                VALUES (\(huntID), \(name), \(key), \(joinCode), \(at))
                ON CONFLICT (hunt_id, name_key) DO NOTHING RETURNING id
                """, logger: self.logger
            ).collect()
            guard let id = try rows.first?.decode(Int64.self) else {
                throw LeagueError.teamNameTaken(name: name)
            }
            if let founder { try await self.putOnTeam(db, team: id, hunt: huntID, player: founder, at: at) }
            return id
        }
        return Team(
            id: id, huntID: huntID, name: name, joinCode: joinCode, createdAt: RFC3339.parse(at) ?? now)
    }

    /// The team with this id.
    public func team(id: Int64) async throws -> Team? {
        try await read { db in
            try await self.teams(db, "SELECT \(unescaped: Self.teamColumns) WHERE id = \(id)")
        }
        .first
    }

    /// The team with this join code.
    public func team(joinCode: String) async throws -> Team? {
        try await read { db in
            try await self.teams(db, "SELECT \(unescaped: Self.teamColumns) WHERE join_code = \(joinCode)")
        }.first
    }

    /// A hunt's teams.
    public func teams(huntID: String) async throws -> [Team] {
        try await read { db in
            try await self.teams(
                db, "SELECT \(unescaped: Self.teamColumns) WHERE hunt_id = \(huntID) ORDER BY id")
        }
    }

    /// The player's team on a hunt.
    public func team(of player: PlayerID, huntID: String) async throws -> Team? {
        try await read { db in
            try await self.teams(
                db,
                """
                SELECT \(unescaped: Self.teamColumns) WHERE id = (SELECT team_id FROM team_members
                    WHERE hunt_id = \(huntID) AND player_id = \(player.rawValue))
                """)
        }.first
    }

    /// A team's members.
    public func members(team: Int64) async throws -> [TeamMember] {
        try await read { db in
            try await db.query(
                """
                SELECT m.player_id, p.name, m.joined_at FROM team_members m JOIN players p ON p.id = m.player_id
                WHERE m.team_id = \(team) ORDER BY m.joined_at, m.player_id
                """, logger: self.logger
            ).collect().map { row in
                let (player, name, joined) = try row.decode((Int64, String, String).self)
                return TeamMember(
                    player: PlayerID(player), name: name,
                    joinedAt: RFC3339.parse(joined) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// The members of a hunt's teams, by team.
    public func members(huntID: String) async throws -> [Int64: [TeamMember]] {
        try await read { db in
            var members: [Int64: [TeamMember]] = [:]
            for try await row in try await db.query(
                """
                SELECT m.team_id, m.player_id, p.name, m.joined_at
                FROM team_members m JOIN players p ON p.id = m.player_id
                WHERE m.hunt_id = \(huntID) ORDER BY m.team_id, m.joined_at, m.player_id
                """, logger: self.logger)
            {
                let (team, player, name, joined) = try row.decode((Int64, Int64, String, String).self)
                members[team, default: []].append(
                    TeamMember(
                        player: PlayerID(player), name: name,
                        joinedAt: RFC3339.parse(joined) ?? Date(timeIntervalSince1970: 0)))
            }
            return members
        }
    }

    /// Puts a player on a team unless it is full: the team's row is locked while its members are
    /// counted, so two players cannot take its last place at once.
    public func joinTeam(_ team: Int64, player: PlayerID, maxSize: Int?, at now: Date) async throws
        -> TeamJoining
    {
        try await transaction { db in
            guard
                let hunt = try await db.query(
                    "SELECT hunt_id FROM teams WHERE id = \(team) FOR UPDATE", logger: self.logger
                ).collect().first?.decode(String.self)
            else { return .full }
            let current = try await db.query(
                "SELECT team_id FROM team_members WHERE hunt_id = \(hunt) AND player_id = \(player.rawValue)",
                logger: self.logger
            ).collect().first?.decode(Int64.self)
            if current == team { return .already }
            if let maxSize {
                let count =
                    try await db.query(
                        "SELECT count(*) FROM team_members WHERE team_id = \(team)", logger: self.logger
                    ).collect().first?.decode(Int.self) ?? 0
                if count >= maxSize { return .full }
            }
            try await self.putOnTeam(db, team: team, hunt: hunt, player: player, at: RFC3339.format(now))
            return .joined
        }
    }

    /// Takes a player off a team.
    public func leaveTeam(_ team: Int64, player: PlayerID) async throws -> Bool {
        try await transaction { db in
            let rows = try await db.query(
                """
                DELETE FROM team_members WHERE team_id = \(team) AND player_id = \(player.rawValue)
                RETURNING player_id
                """, logger: self.logger
            ).collect()
            return !rows.isEmpty
        }
    }

    /// A hunt's accepted check-ins recorded with a team (banned players' left out).
    public func teamCheckIns(huntID: String, team only: Int64?) async throws -> [TeamCheckIn] {
        // One team's through the index on `team_id`; a whole hunt's through the hunt's.
        let select = """
            SELECT c.team_id, s.player_id, s.id, s.hunt_id, s.stop_id, s.fix_epoch, c.clock_epoch, c.answer_right
            FROM checkin_state s JOIN checkins c ON c.id = s.id JOIN players p ON p.id = s.player_id
            WHERE p.banned = 0 AND \(CheckInStateSQL.canCount("s.")) AND \(CheckInStateSQL.counts("s."))
                AND s.stop_id IS NOT NULL AND s.fix_epoch IS NOT NULL
            """
        let query: PostgresQuery =
            if let only {
                "\(unescaped: select) AND s.hunt_id = \(huntID) AND c.team_id = \(only)"
            } else {
                "\(unescaped: select) AND s.hunt_id = \(huntID) AND c.team_id IS NOT NULL"
            }
        return try await read { db in
            try await db.query(
                query, logger: self.logger
            ).collect().map { row in
                let (team, player, id, hunt, stop, epoch, clock, answer) = try row.decode(
                    (Int64, Int64, Int64, String, String, Double, Double?, Int64?).self)
                return TeamCheckIn(
                    team: team, player: PlayerID(player),
                    checkIn: ScoredCheckIn(
                        id: id, huntID: hunt, stopID: stop, time: Date(timeIntervalSince1970: epoch),
                        clock: clock.map(Date.init(timeIntervalSince1970:)), answered: answer == 1))
            }
        }
    }

    /// The adjustments of a hunt's teams, summed by team.
    private static let teamAdjustments = """
        LEFT JOIN (SELECT team_id, hunt_id, SUM(points)::int8 AS points FROM adjustments
                   WHERE team_id IS NOT NULL GROUP BY team_id, hunt_id) a ON a.team_id = t.id AND a.hunt_id = t.hunt_id
        """

    /// The best rows of a hunt's team board, from the running totals, in the board's order
    /// (`TeamBoard.ordered`; names compare by code point, as Swift compares them in NFC).
    public func teamBoard(huntID: String, limit: Int?) async throws -> [TeamStanding] {
        try await read { db in
            var rows: [TeamStanding] = []
            for row in try await db.query(
                """
                SELECT t.id, t.name, t.join_code, t.created_at, coalesce(s.points, 0) + coalesce(a.points, 0) AS total,
                    coalesce(a.points, 0)::int8, coalesce(s.stops, 0), coalesce(s.completed, 0), coalesce(s.badges, ''),
                    s.reached
                FROM teams t LEFT JOIN team_scores s ON s.team_id = t.id \(unescaped: Self.teamAdjustments)
                WHERE t.hunt_id = \(huntID)
                ORDER BY total DESC, s.reached IS NULL, s.reached, t.name COLLATE "C", t.id LIMIT \(limit)
                """, logger: self.logger
            ).collect() {
                let (id, name, code, created, points, adjusted, stops, completed, badges, reached) =
                    try row.decode(
                        (Int64, String, String, String, Int, Int, Int, Int64, String, Double?).self)
                rows.append(
                    TeamStanding(
                        rank: 0,
                        team: Team(
                            id: id, huntID: huntID, name: name, joinCode: code,
                            createdAt: RFC3339.parse(created) ?? Date(timeIntervalSince1970: 0)),
                        members: [], points: points, adjustments: adjusted, stopsVisited: stops,
                        completed: completed != 0, badges: TeamTotals.badges(column: badges),
                        reachedAt: reached.map(Date.init(timeIntervalSince1970:)), visits: [:]))
            }
            var members: [Int64: [String]] = [:]
            for row in try await db.query(
                """
                SELECT m.team_id, p.name FROM team_members m JOIN players p ON p.id = m.player_id
                WHERE m.hunt_id = \(huntID) AND m.team_id = ANY(\(rows.map(\.team.id))::int8[])
                ORDER BY m.team_id, m.joined_at, m.player_id
                """, logger: self.logger
            ).collect() {
                let (team, name) = try row.decode((Int64, String).self)
                members[team, default: []].append(name)
            }
            for index in rows.indices { rows[index].members = members[rows[index].team.id] ?? [] }
            return TeamBoard.ranked(rows)
        }
    }

    /// A team's rank with `points`: from the running totals.
    public func teamRank(huntID: String, points: Int) async throws -> Int {
        try await read { db in
            let ahead = try await db.query(
                """
                SELECT count(*) FROM teams t LEFT JOIN team_scores s ON s.team_id = t.id \(unescaped: Self.teamAdjustments)
                WHERE t.hunt_id = \(huntID) AND coalesce(s.points, 0) + coalesce(a.points, 0) > \(points)
                """, logger: self.logger
            ).collect().first?.decode(Int.self)
            return 1 + (ahead ?? 0)
        }
    }

    /// The hunts a player is on a team of.
    func teamHunts(_ db: PostgresConnection, player: PlayerID) async throws -> Set<String> {
        var found: Set<String> = []
        for row in try await db.query(
            "SELECT hunt_id FROM team_members WHERE player_id = \(player.rawValue)", logger: logger
        ).collect() {
            found.insert(try row.decode(String.self))
        }
        return found
    }

    private static let teamColumns = "id, hunt_id, name, join_code, created_at FROM teams"

    private func putOnTeam(_ db: PostgresConnection, team: Int64, hunt: String, player: PlayerID, at: String)
        async throws
    {
        try await db.query(
            """
            INSERT INTO team_members(team_id, hunt_id, player_id, joined_at)
            VALUES (\(team), \(hunt), \(player.rawValue), \(at))
            ON CONFLICT (hunt_id, player_id) DO UPDATE SET team_id = EXCLUDED.team_id, joined_at = EXCLUDED.joined_at
            """, logger: logger)
        // A team member has joined the hunt (a private hunt's team code lets them in).
        try await db.query(
            """
            INSERT INTO hunt_members(hunt_id, player_id, joined_at) VALUES (\(hunt), \(player.rawValue), \(at))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    private func teams(_ db: PostgresConnection, _ query: PostgresQuery) async throws -> [Team] {
        try await db.query(query, logger: logger).collect().map { row in
            let (id, hunt, name, code, created) = try row.decode((Int64, String, String, String, String).self)
            return Team(
                id: id, huntID: hunt, name: name, joinCode: code,
                createdAt: RFC3339.parse(created) ?? Date(timeIntervalSince1970: 0))
        }
    }
}
