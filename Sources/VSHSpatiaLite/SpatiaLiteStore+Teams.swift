public import Foundation
internal import GRDB
internal import VSHSQL
public import VSHCore

extension SpatiaLiteStore {
    /// Makes a team; its founder (when given) is its first member.
    public func createTeam(huntID: String, name: String, joinCode: String, founder: PlayerID?, at now: Date)
        async throws -> Team
    {
        let at = RFC3339.format(now)
        let id = try await write { db -> Int64 in
            let key = Team.nameKey(name)
            if try Bool.fetchOne(
                db, sql: "SELECT 1 FROM teams WHERE hunt_id = ? AND name_key = ?", arguments: [huntID, key])
                != nil
            {
                throw LeagueError.teamNameTaken(name: name)
            }
            try db.execute(
                sql:
                    "INSERT INTO teams(hunt_id, name, name_key, join_code, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [huntID, name, key, joinCode, at])
            let id = db.lastInsertedRowID
            if let founder { try Self.putOnTeam(db, team: id, hunt: huntID, player: founder, at: at) }
            return id
        }
        return Team(
            id: id, huntID: huntID, name: name, joinCode: joinCode, createdAt: RFC3339.parse(at) ?? now)
    }

    /// The team with this id.
    public func team(id: Int64) async throws -> Team? {
        try await read { db in try Self.teams(db, where: "id = ?", [id]).first }
    }

    /// The team with this join code.
    public func team(joinCode: String) async throws -> Team? {
        try await read { db in try Self.teams(db, where: "join_code = ?", [joinCode]).first }
    }

    /// A hunt's teams.
    public func teams(huntID: String) async throws -> [Team] {
        try await read { db in try Self.teams(db, where: "hunt_id = ?", [huntID]) }
    }

    /// The player's team on a hunt.
    public func team(of player: PlayerID, huntID: String) async throws -> Team? {
        try await read { db in
            try Self.teams(
                db, where: "id = (SELECT team_id FROM team_members WHERE hunt_id = ? AND player_id = ?)",
                [huntID, player.rawValue]
            ).first
        }
    }

    /// A team's members.
    public func members(team: Int64) async throws -> [TeamMember] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT m.player_id, p.name, m.joined_at FROM team_members m JOIN players p ON p.id = m.player_id
                    WHERE m.team_id = ? ORDER BY m.joined_at, m.player_id
                    """, arguments: [team]
            ).map { row in
                TeamMember(
                    player: PlayerID(row[0] as Int64), name: row[1],
                    joinedAt: RFC3339.parse(row[2] as String) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// The members of a hunt's teams, by team.
    public func members(huntID: String) async throws -> [Int64: [TeamMember]] {
        try await read { db in
            var members: [Int64: [TeamMember]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT m.team_id, m.player_id, p.name, m.joined_at
                    FROM team_members m JOIN players p ON p.id = m.player_id
                    WHERE m.hunt_id = ? ORDER BY m.team_id, m.joined_at, m.player_id
                    """, arguments: [huntID])
            while let row = try rows.next() {
                members[row[0] as Int64, default: []].append(
                    TeamMember(
                        player: PlayerID(row[1] as Int64), name: row[2],
                        joinedAt: RFC3339.parse(row[3] as String) ?? Date(timeIntervalSince1970: 0)))
            }
            return members
        }
    }

    /// Puts a player on a team unless it is full.
    public func joinTeam(_ team: Int64, player: PlayerID, maxSize: Int?, at now: Date) async throws
        -> TeamJoining
    {
        try await write { db in
            guard
                let hunt = try String.fetchOne(
                    db, sql: "SELECT hunt_id FROM teams WHERE id = ?", arguments: [team])
            else { return .full }
            let current = try Int64.fetchOne(
                db, sql: "SELECT team_id FROM team_members WHERE hunt_id = ? AND player_id = ?",
                arguments: [hunt, player.rawValue])
            if current == team { return .already }
            if let maxSize {
                let count =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM team_members WHERE team_id = ?", arguments: [team])
                    ?? 0
                if count >= maxSize { return .full }
            }
            try Self.putOnTeam(db, team: team, hunt: hunt, player: player, at: RFC3339.format(now))
            return .joined
        }
    }

    /// Takes a player off a team.
    public func leaveTeam(_ team: Int64, player: PlayerID) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "DELETE FROM team_members WHERE team_id = ? AND player_id = ?",
                arguments: [team, player.rawValue])
            return db.changesCount > 0
        }
    }

    /// A hunt's accepted check-ins recorded with a team (banned players' left out).
    public func teamCheckIns(huntID: String, team: Int64?) async throws -> [TeamCheckIn] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.team_id, s.player_id, s.id, s.hunt_id, s.stop_id, s.fix_epoch, c.clock_epoch,
                        c.answer_right
                    FROM checkin_state s JOIN checkins c ON c.id = s.id JOIN players p ON p.id = s.player_id
                    WHERE s.hunt_id = ? AND \(team == nil ? "c.team_id IS NOT NULL" : "c.team_id = ?") AND p.banned = 0
                        AND \(CheckInStateSQL.canCount("s.")) AND \(CheckInStateSQL.counts("s."))
                        AND s.stop_id IS NOT NULL AND s.fix_epoch IS NOT NULL
                    """, arguments: StatementArguments([huntID] + (team.map { [$0] } ?? []))
            ).map { row in
                TeamCheckIn(
                    team: row[0], player: PlayerID(row[1] as Int64),
                    checkIn: ScoredCheckIn(
                        id: row[2], huntID: row[3], stopID: row[4],
                        time: Date(timeIntervalSince1970: row[5] as Double),
                        clock: (row[6] as Double?).map(Date.init(timeIntervalSince1970:)),
                        answered: (row[7] as Int64?) == 1))
            }
        }
    }

    /// The hunt's teams with their adjusted points, in the board's order (`TeamBoard.ordered`):
    /// the running totals (`team_scores`) and the adjustments, sorted by SQLite (names compare
    /// byte by byte, as Swift compares them in NFC).
    static let teamBoardSQL = """
        SELECT t.id, t.name, t.join_code, t.created_at, coalesce(s.points, 0) + coalesce(a.points, 0) AS total,
            coalesce(a.points, 0), coalesce(s.stops, 0), coalesce(s.completed, 0), coalesce(s.badges, ''), s.reached
        FROM teams t LEFT JOIN team_scores s ON s.team_id = t.id
        LEFT JOIN (SELECT team_id, SUM(points) AS points FROM adjustments WHERE hunt_id = ?1 AND team_id IS NOT NULL
                   GROUP BY team_id) a ON a.team_id = t.id
        WHERE t.hunt_id = ?1
        """

    /// The best rows of a hunt's team board, from the running totals.
    public func teamBoard(huntID: String, limit: Int?) async throws -> [TeamStanding] {
        try await read { db in
            var rows: [TeamStanding] = []
            for row in try Row.fetchAll(
                db.cachedStatement(
                    sql: Self.teamBoardSQL
                        + " ORDER BY total DESC, s.reached IS NULL, s.reached, t.name, t.id LIMIT ?2"),
                arguments: [huntID, limit ?? -1])
            {
                let reached: Double? = row[9]
                rows.append(
                    TeamStanding(
                        rank: 0,
                        team: Team(
                            id: row[0], huntID: huntID, name: row[1], joinCode: row[2],
                            createdAt: RFC3339.parse(row[3] as String) ?? Date(timeIntervalSince1970: 0)),
                        members: [], points: row[4], adjustments: row[5], stopsVisited: row[6],
                        completed: (row[7] as Int64) != 0, badges: TeamTotals.badges(column: row[8]),
                        reachedAt: reached.map(Date.init(timeIntervalSince1970:)), visits: [:]))
            }
            // Members of the rows shown: of every team at once for a whole board.
            var members: [Int64: [String]] = [:]
            let byTeam = rows.count > 500
            let sql = """
                SELECT m.team_id, p.name FROM team_members m JOIN players p ON p.id = m.player_id
                WHERE \(byTeam ? "m.hunt_id = ?" : "m.team_id = ?") ORDER BY m.team_id, m.joined_at, m.player_id
                """
            for argument in byTeam ? [huntID.databaseValue] : rows.map(\.team.id.databaseValue) {
                for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: [argument]) {
                    members[row[0] as Int64, default: []].append(row[1])
                }
            }
            for index in rows.indices { rows[index].members = members[rows[index].team.id] ?? [] }
            return TeamBoard.ranked(rows)
        }
    }

    /// A team's rank with `points`: from the running totals.
    public func teamRank(huntID: String, points: Int) async throws -> Int {
        try await read { db in
            1
                + (try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM (\(Self.teamBoardSQL)) WHERE total > ?2",
                    arguments: [huntID, points]) ?? 0)
        }
    }

    /// The hunts a player is on a team of.
    static func teamHunts(_ db: Database, player: PlayerID) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT hunt_id FROM team_members WHERE player_id = ?"),
                arguments: [player.rawValue]))
    }

    private static func putOnTeam(_ db: Database, team: Int64, hunt: String, player: PlayerID, at: String)
        throws
    {
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO team_members(team_id, hunt_id, player_id, joined_at) VALUES (?, ?, ?, ?)",
            arguments: [team, hunt, player.rawValue, at])
        // A team member has joined the hunt (a private hunt's team code lets them in).
        try db.execute(
            sql: "INSERT OR IGNORE INTO hunt_members(hunt_id, player_id, joined_at) VALUES (?, ?, ?)",
            arguments: [hunt, player.rawValue, at])
    }

    private static func teams(_ db: Database, where condition: String, _ arguments: StatementArguments) throws
        -> [Team]
    {
        try Row.fetchAll(
            db,
            sql: "SELECT id, hunt_id, name, join_code, created_at FROM teams WHERE \(condition) ORDER BY id",
            arguments: arguments
        ).map { row in
            Team(
                id: row[0], huntID: row[1], name: row[2], joinCode: row[3],
                createdAt: RFC3339.parse(row[4] as String) ?? Date(timeIntervalSince1970: 0))
        }
    }
}
