import Foundation
internal import GRDB
public import VSHCore
import VSHSQL

extension SpatiaLiteStore {
    /// Rankings: the running totals (`player_scores`) for the all-time board, else a grouping of `score_events`.
    public func leaderboard(_ query: LeaderboardQuery) async throws -> [LeaderboardEntry] {
        let (huntID, since, until, limit) = (query.huntID, query.since, query.until, query.limit)
        return try await read { db in
            if let huntID,
                try Bool.fetchOne(db, sql: "SELECT 1 FROM hunts WHERE id = ?", arguments: [huntID]) == nil
            {
                throw LeagueError.unknownHunt(
                    id: huntID, known: try String.fetchAll(db, sql: "SELECT id FROM hunts ORDER BY position"))
            }
            // Organisers' adjustments count beside the events check-ins earned (none: the events only).
            let adjusted =
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM adjustments WHERE player_id IS NOT NULL)")
                ?? false
            let events =
                adjusted
                ? """
                (SELECT player_id, kind, hunt_id, points, at_epoch FROM score_events
                 UNION ALL SELECT player_id, 'adjustment', hunt_id, points, at_epoch FROM adjustments
                 WHERE player_id IS NOT NULL)
                """ : "score_events"
            // All time: the running totals, one row a player (in a hunt: one row a player and hunt).
            let allTime = """
                SELECT p.id, p.name, s.points, s.hunts, s.stops, s.badges, s.reached
                FROM player_scores s JOIN players p ON p.id = s.player_id
                WHERE p.banned = 0
                ORDER BY s.points DESC, s.reached ASC, p.name_key ASC
                LIMIT ?4
                """
            let inHunt = """
                SELECT p.id, p.name, s.points, s.hunts, s.stops, s.badges, s.reached
                FROM hunt_scores s JOIN players p ON p.id = s.player_id
                WHERE s.hunt_id = ?1 AND p.banned = 0
                ORDER BY s.points DESC, s.reached ASC, p.name_key ASC
                LIMIT ?4
                """
            let rows = try LeaderboardRow.fetchAll(
                db,
                sql: since == nil && until == nil && !adjusted
                    ? (huntID == nil ? allTime : inHunt)
                    : """
                    SELECT p.id, p.name, SUM(e.points) AS points, SUM(e.kind = 'bonus') AS hunts, SUM(e.kind = 'stop') AS stops,
                        SUM(e.kind = 'badge') AS badges, MAX(e.at_epoch) AS reached
                    FROM \(events) e JOIN players p ON p.id = e.player_id
                    WHERE (?1 IS NULL OR e.hunt_id = ?1) AND (?2 IS NULL OR e.at_epoch >= ?2) AND (?3 IS NULL OR e.at_epoch < ?3)
                      AND p.banned = 0
                    GROUP BY e.player_id
                    ORDER BY points DESC, reached ASC, p.name_key ASC
                    LIMIT ?4
                    """,
                arguments: [huntID, since?.timeIntervalSince1970, until?.timeIntervalSince1970, limit ?? -1])
            let ranks = Ranking.competition(points: rows.map(\.points))
            return zip(ranks, rows).map { rank, row in
                LeaderboardEntry(
                    rank: rank, playerID: PlayerID(row.id), player: row.name, points: row.points,
                    huntsCompleted: row.hunts, stopsVisited: row.stops, badges: row.badges,
                    reachedAt: Date(timeIntervalSince1970: row.reached))
            }
        }
    }

    /// A player's totals, per-hunt progress, badges and latest check-ins.
    public func profile(player: PlayerID, recent: Int, acceptedOnly: Bool) async throws -> PlayerProfile {
        try await read { db in
            guard
                let record = try PlayerRow.fetchOne(
                    db, sql: "SELECT id, name, email, created_at FROM players WHERE id = ?",
                    arguments: [player.rawValue]
                )?.record
            else { throw LeagueError.unknownPlayerID(player) }
            let playerID = player.rawValue
            let totals = try TotalsRow.fetchOne(
                db,
                sql:
                    "SELECT COALESCE(SUM(points), 0) AS points, COALESCE(SUM(kind = 'stop'), 0) AS stops, COALESCE(SUM(kind = 'bonus'), 0) AS hunts FROM score_events WHERE player_id = ?",
                arguments: [playerID])
            var hunts: [PlayerProfile.HuntProgress] = []
            for row in try HuntProgressRow.fetchAll(
                db,
                sql: """
                    SELECT h.id, h.name, (SELECT COUNT(*) FROM stops s WHERE s.hunt_id = h.id) AS total,
                        (SELECT COUNT(*) FROM score_events e WHERE e.player_id = ?1 AND e.hunt_id = h.id AND e.kind = 'stop') AS visited,
                        (SELECT MIN(at_epoch) FROM score_events e WHERE e.player_id = ?1 AND e.hunt_id = h.id AND e.kind = 'bonus') AS completed
                    FROM hunts h ORDER BY h.position
                    """,
                arguments: [playerID])
            {
                hunts.append(
                    PlayerProfile.HuntProgress(
                        huntID: row.id, name: row.name, visited: row.visited, total: row.total,
                        completedAt: row.completed.map { Date(timeIntervalSince1970: $0) }))
            }
            let badges = try EarnedBadgeRow.fetchAll(
                db,
                sql: """
                    SELECT b.id, b.name, b.description, e.points, e.at_epoch, e.checkin_id FROM score_events e JOIN badges b ON b.id = e.badge_id
                    WHERE e.player_id = ? AND e.kind = 'badge' ORDER BY e.at_epoch, b.position
                    """,
                arguments: [playerID]
            ).map {
                PlayerProfile.EarnedBadge(
                    id: $0.id, name: $0.name, description: $0.description, points: $0.points,
                    earnedAt: Date(timeIntervalSince1970: $0.atEpoch), checkInID: $0.checkinID)
            }
            let latest = try RecentCheckInRow.fetchAll(
                db,
                sql: """
                    SELECT c.id, c.received_at, c.hunt_id, c.stop_id, s.name AS stop_name, c.state,
                        c.photo_file IS NOT NULL AS has_photo,
                        (SELECT COALESCE(SUM(points), 0) FROM score_events e WHERE e.checkin_id = c.id) AS points,
                        (SELECT reason FROM reviews r WHERE r.checkin_id = c.id ORDER BY r.id DESC LIMIT 1) AS reason
                    FROM checkin_state c LEFT JOIN stops s ON s.id = c.stop_id
                    WHERE c.player_id = ? AND (? = 0 OR \(CheckInStateSQL.counts("c."))) ORDER BY c.id DESC LIMIT ?
                    """,
                arguments: [playerID, acceptedOnly, recent]
            ).map {
                PlayerProfile.RecentCheckIn(
                    id: $0.id, receivedAt: RFC3339.parse($0.receivedAt) ?? Date(timeIntervalSince1970: 0),
                    huntID: $0.huntID, stopID: $0.stopID, stopName: $0.stopName, state: $0.state,
                    points: $0.points, hasPhoto: $0.hasPhoto, reason: $0.reason)
            }
            return PlayerProfile(
                id: player, name: record.name, createdAt: record.createdAt, points: totals?.points ?? 0,
                stopsVisited: totals?.stops ?? 0, huntsCompleted: totals?.hunts ?? 0, hunts: hunts,
                badges: badges, recent: latest)
        }
    }
}

extension SpatiaLiteStore {
    /// A hunt's stops with the player's first accepted photo at each.
    public func collagePlan(player: PlayerID, hunt huntID: String) async throws -> CollagePlan {
        try await read { db in
            _ = try Self.playerName(db, player)
            let playerID = player.rawValue
            guard
                let huntName = try String.fetchOne(
                    db, sql: "SELECT name FROM hunts WHERE id = ?", arguments: [huntID])
            else {
                throw LeagueError.unknownHunt(
                    id: huntID, known: try String.fetchAll(db, sql: "SELECT id FROM hunts ORDER BY position"))
            }
            let tiles = try CollageTileRow.fetchAll(
                db,
                sql: """
                    SELECT s.id, s.name,
                        EXISTS (SELECT 1 FROM checkin_state c WHERE c.player_id = ?1 AND c.stop_id = s.id AND \(CheckInStateSQL.counts("c."))) AS visited,
                        (SELECT c.photo_file FROM checkin_state c WHERE c.player_id = ?1 AND c.stop_id = s.id AND \(CheckInStateSQL.counts("c."))
                            AND c.photo_file IS NOT NULL ORDER BY c.fix_epoch, c.id LIMIT 1) AS photo
                    FROM stops s WHERE s.hunt_id = ?2 ORDER BY s.position
                    """,
                arguments: [playerID, huntID]
            ).map {
                CollageTile(stopID: $0.id, stopName: $0.name, visited: $0.visited, photoFile: $0.photo)
            }
            let complete =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT 1 FROM score_events WHERE player_id = ? AND hunt_id = ? AND kind = 'bonus'",
                    arguments: [playerID, huntID]) ?? false
            return CollagePlan(huntName: huntName, tiles: tiles, complete: complete)
        }
    }
}
