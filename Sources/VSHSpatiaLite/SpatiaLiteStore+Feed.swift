public import Foundation
internal import GRDB
internal import VSHSQL
public import VSHCore

extension SpatiaLiteStore {
    /// The latest check-ins, newest first.
    public func feed(huntID: String?, before: Int64?, limit: Int) async throws -> [FeedItem] {
        try await read { db in
            try Self.feedItems(
                db, where: "(?1 IS NULL OR c.hunt_id = ?1) AND (?2 IS NULL OR c.id < ?2)", order: "c.id DESC",
                [huntID, before, limit])
        }
    }

    /// One check-in as the feed shows it.
    public func feedItem(_ id: Int64) async throws -> FeedItem? {
        try await read { db in try Self.feedItems(db, where: "c.id = ?1", order: "c.id", [id, nil, 1]).first }
    }

    /// Features a check-in's photo, or stops featuring it.
    public func setFeatured(_ id: Int64, _ featured: Bool, by: String, at now: Date) async throws -> Bool {
        try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM checkins WHERE id = ?", arguments: [id]) != nil
            else {
                return false
            }
            if featured {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO featured_photos(checkin_id, by_name, at) VALUES (?, ?, ?)",
                    arguments: [id, by, RFC3339.format(now)])
            } else {
                try db.execute(sql: "DELETE FROM featured_photos WHERE checkin_id = ?", arguments: [id])
            }
            return true
        }
    }

    /// A hunt's featured photos that still count, newest featured first.
    public func featured(huntID: String, limit: Int) async throws -> [FeedItem] {
        try await read { db in
            try Self.feedItems(
                db,
                where: """
                    c.hunt_id = ?1 AND f.checkin_id IS NOT NULL AND c.photo_file IS NOT NULL
                        AND \(CheckInStateSQL.counts("c.")) AND p.banned = 0
                    """, order: "f.at DESC, c.id DESC", [huntID, nil, limit])
        }
    }

    private static func feedItems(
        _ db: Database, where condition: String, order: String, _ arguments: StatementArguments
    ) throws -> [FeedItem] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT c.id, c.player_id, p.name, k.team_id, c.hunt_id, c.stop_id, s.name, c.received_at, c.state,
                    c.photo_file IS NOT NULL, f.checkin_id IS NOT NULL
                FROM checkin_state c JOIN checkins k ON k.id = c.id JOIN players p ON p.id = c.player_id
                    LEFT JOIN stops s ON s.id = c.stop_id LEFT JOIN featured_photos f ON f.checkin_id = c.id
                WHERE \(condition) ORDER BY \(order) LIMIT ?3
                """, arguments: arguments
        ).map { row in
            FeedItem(
                id: row[0], playerID: PlayerID(row[1] as Int64), player: row[2], team: row[3], huntID: row[4],
                stopID: row[5], stopName: row[6],
                receivedAt: RFC3339.parse(row[7] as String) ?? Date(timeIntervalSince1970: 0),
                state: CheckInState(rawValue: row[8] as String) ?? .pending, hasPhoto: row[9],
                featured: row[10])
        }
    }
}
