public import Foundation
internal import GRDB
public import VSHCore

/// One line of a leaderboard.
public struct LeaderboardEntry: Equatable, Sendable {
    /// Competition ranking: equal points share a rank (1, 2, 2, 4).
    public var rank: Int
    public var player: String
    public var points: Int
    public var huntsCompleted: Int
    public var stopsVisited: Int
    public var badges: Int
    /// When the player reached this score (their last scoring event in the window).
    public var reachedAt: Date
}

/// A player's page.
public struct PlayerProfile: Sendable {
    public struct HuntProgress: Sendable {
        public var huntID: String
        public var name: String
        public var visited: Int
        public var total: Int
        public var completedAt: Date?
    }

    public struct EarnedBadge: Sendable {
        public var id: String
        public var name: String
        public var description: String
        public var points: Int
        public var earnedAt: Date
        public var checkInID: Int64
    }

    public struct RecentCheckIn: Sendable {
        public var id: Int64
        public var receivedAt: Date
        public var huntID: String?
        public var stopName: String?
        /// The current state: accepted, rejected, pending or revoked.
        public var state: String
        public var points: Int
    }

    public var name: String
    public var createdAt: Date
    public var points: Int
    public var stopsVisited: Int
    public var huntsCompleted: Int
    public var hunts: [HuntProgress]
    public var badges: [EarnedBadge]
    public var recent: [RecentCheckIn]
}

extension GeofenceStore {
    /// Rankings from the players' score events (stops, bonuses, badges), optionally
    /// for one hunt and a time window [since, until) on the time the points were earned.
    /// Equal points share a rank and are listed by who reached that score first.
    public func leaderboard(huntID: String? = nil, since: Date? = nil, until: Date? = nil, limit: Int? = nil) throws -> [LeaderboardEntry] {
        try run {
            try queue.read { db in
                if let huntID, try Bool.fetchOne(db, sql: "SELECT 1 FROM hunts WHERE id = ?", arguments: [huntID]) == nil {
                    throw InputError("no hunt \"\(huntID)\"")
                }
                // All time, all hunts: the running totals, one row a player.
                let allTime = """
                    SELECT p.name, s.points, s.hunts, s.stops, s.badges, s.reached
                    FROM player_scores s JOIN players p ON p.id = s.player_id
                    ORDER BY s.points DESC, s.reached ASC, p.name_key ASC
                    LIMIT ?4
                    """
                let rows = try Row.fetchAll(
                    db,
                    sql: huntID == nil && since == nil && until == nil ? allTime : """
                        SELECT p.name, SUM(e.points) AS points, SUM(e.kind = 'bonus') AS hunts, SUM(e.kind = 'stop') AS stops,
                            SUM(e.kind = 'badge') AS badges, MAX(e.at_epoch) AS reached
                        FROM score_events e JOIN players p ON p.id = e.player_id
                        WHERE (?1 IS NULL OR e.hunt_id = ?1) AND (?2 IS NULL OR e.at_epoch >= ?2) AND (?3 IS NULL OR e.at_epoch < ?3)
                        GROUP BY e.player_id
                        ORDER BY points DESC, reached ASC, p.name_key ASC
                        LIMIT ?4
                        """,
                    arguments: [huntID, since?.timeIntervalSince1970, until?.timeIntervalSince1970, limit ?? -1])
                var entries: [LeaderboardEntry] = []
                for (index, row) in rows.enumerated() {
                    let points: Int = row["points"]
                    let rank = index > 0 && entries[index - 1].points == points ? entries[index - 1].rank : index + 1
                    entries.append(LeaderboardEntry(
                        rank: rank, player: row["name"], points: points, huntsCompleted: row["hunts"], stopsVisited: row["stops"],
                        badges: row["badges"], reachedAt: Date(timeIntervalSince1970: row["reached"])))
                }
                return entries
            }
        }
    }

    /// A player's totals, per-hunt progress, badges with dates, and latest check-ins.
    public func profile(player name: String, recent: Int = 10) throws -> PlayerProfile {
        try run {
            try queue.read { db in
                let playerID = try Self.playerID(db, name: name)
                let player = try Row.fetchOne(db, sql: "SELECT name, created_at FROM players WHERE id = ?", arguments: [playerID])!
                let totals = try Row.fetchOne(
                    db,
                    sql: "SELECT COALESCE(SUM(points), 0) AS points, COALESCE(SUM(kind = 'stop'), 0) AS stops, COALESCE(SUM(kind = 'bonus'), 0) AS hunts FROM score_events WHERE player_id = ?",
                    arguments: [playerID])!
                var hunts: [PlayerProfile.HuntProgress] = []
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT h.id, h.name, (SELECT COUNT(*) FROM stops s WHERE s.hunt_id = h.id) AS total,
                            (SELECT COUNT(*) FROM score_events e WHERE e.player_id = ?1 AND e.hunt_id = h.id AND e.kind = 'stop') AS visited,
                            (SELECT MIN(at_epoch) FROM score_events e WHERE e.player_id = ?1 AND e.hunt_id = h.id AND e.kind = 'bonus') AS completed
                        FROM hunts h ORDER BY h.position
                        """,
                    arguments: [playerID])
                {
                    hunts.append(PlayerProfile.HuntProgress(
                        huntID: row["id"], name: row["name"], visited: row["visited"], total: row["total"],
                        completedAt: (row["completed"] as Double?).map { Date(timeIntervalSince1970: $0) }))
                }
                let badges = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT b.id, b.name, b.description, e.points, e.at_epoch, e.checkin_id FROM score_events e JOIN badges b ON b.id = e.badge_id
                        WHERE e.player_id = ? AND e.kind = 'badge' ORDER BY e.at_epoch, b.position
                        """,
                    arguments: [playerID]
                ).map {
                    PlayerProfile.EarnedBadge(
                        id: $0["id"], name: $0["name"], description: $0["description"], points: $0["points"],
                        earnedAt: Date(timeIntervalSince1970: $0["at_epoch"]), checkInID: $0["checkin_id"])
                }
                let latest = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT c.id, c.received_at, c.hunt_id, s.name AS stop_name, c.state,
                            (SELECT COALESCE(SUM(points), 0) FROM score_events e WHERE e.checkin_id = c.id) AS points
                        FROM checkin_state c LEFT JOIN stops s ON s.id = c.stop_id
                        WHERE c.player_id = ? ORDER BY c.id DESC LIMIT ?
                        """,
                    arguments: [playerID, recent]
                ).map {
                    PlayerProfile.RecentCheckIn(
                        id: $0["id"], receivedAt: RFC3339.parse($0["received_at"]) ?? Date(timeIntervalSince1970: 0), huntID: $0["hunt_id"],
                        stopName: $0["stop_name"], state: $0["state"], points: $0["points"])
                }
                return PlayerProfile(
                    name: player["name"], createdAt: RFC3339.parse(player["created_at"]) ?? Date(timeIntervalSince1970: 0),
                    points: totals["points"], stopsVisited: totals["stops"], huntsCompleted: totals["hunts"], hunts: hunts,
                    badges: badges, recent: latest)
            }
        }
    }
}

/// A stop's place in a player's collage.
public struct CollageTile: Sendable {
    public var stopID: String
    public var stopName: String
    /// Whether the player has an accepted check-in here.
    public var visited: Bool
    /// The archived photo of the first accepted photo check-in here, relative to the archive.
    public var photoFile: String?
}

extension GeofenceStore {
    /// Every stop of a hunt, in order, with the player's accepted photo there (if any).
    public func collageTiles(player: String, hunt huntID: String) throws -> (huntName: String, tiles: [CollageTile], complete: Bool) {
        try run {
            try queue.read { db in
                let playerID = try Self.playerID(db, name: player)
                guard let huntName = try String.fetchOne(db, sql: "SELECT name FROM hunts WHERE id = ?", arguments: [huntID]) else {
                    throw InputError("no hunt \"\(huntID)\"")
                }
                let tiles = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT s.id, s.name,
                            EXISTS (SELECT 1 FROM checkin_state c WHERE c.player_id = ?1 AND c.stop_id = s.id AND c.state = 'accepted') AS visited,
                            (SELECT c.photo_file FROM checkin_state c WHERE c.player_id = ?1 AND c.stop_id = s.id AND c.state = 'accepted'
                                AND c.photo_file IS NOT NULL ORDER BY c.fix_epoch, c.id LIMIT 1) AS photo
                        FROM stops s WHERE s.hunt_id = ?2 ORDER BY s.position
                        """,
                    arguments: [playerID, huntID]
                ).map { CollageTile(stopID: $0["id"], stopName: $0["name"], visited: $0["visited"], photoFile: $0["photo"]) }
                let complete = try Bool.fetchOne(
                    db, sql: "SELECT 1 FROM score_events WHERE player_id = ? AND hunt_id = ? AND kind = 'bonus'", arguments: [playerID, huntID]) ?? false
                return (huntName, tiles, complete)
            }
        }
    }
}
