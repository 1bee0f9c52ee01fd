public import Foundation
internal import PostgresNIO
public import VSHCore
internal import VSHSQL

extension PostGISStore {
    /// The latest check-ins, newest first.
    public func feed(huntID: String?, before: Int64?, limit: Int) async throws -> [FeedItem] {
        try await read { db in
            try await self.feedItems(
                db,
                """
                SELECT \(unescaped: Self.feedColumns)
                WHERE (\(huntID)::text IS NULL OR c.hunt_id = \(huntID)) AND (\(before)::int8 IS NULL OR c.id < \(before))
                ORDER BY c.id DESC LIMIT \(Int64(limit))
                """)
        }
    }

    /// One check-in as the feed shows it.
    public func feedItem(_ id: Int64) async throws -> FeedItem? {
        try await read { db in
            try await self.feedItems(db, "SELECT \(unescaped: Self.feedColumns) WHERE c.id = \(id)")
        }.first
    }

    /// Features a check-in's photo, or stops featuring it.
    public func setFeatured(_ id: Int64, _ featured: Bool, by: String, at now: Date) async throws -> Bool {
        try await transaction { db in
            guard
                !(try await db.query("SELECT 1 FROM checkins WHERE id = \(id)", logger: self.logger).collect()
                    .isEmpty)
            else { return false }
            if featured {
                try await db.query(
                    """
                    INSERT INTO featured_photos(checkin_id, by_name, at) VALUES (\(id), \(by), \(RFC3339.format(now)))
                    ON CONFLICT DO NOTHING
                    """, logger: self.logger)
            } else {
                try await db.query(
                    "DELETE FROM featured_photos WHERE checkin_id = \(id)", logger: self.logger)
            }
            return true
        }
    }

    /// A hunt's featured photos that still count, newest featured first.
    public func featured(huntID: String, limit: Int) async throws -> [FeedItem] {
        try await read { db in
            try await self.feedItems(
                db,
                """
                SELECT \(unescaped: Self.feedColumns)
                WHERE c.hunt_id = \(huntID) AND f.checkin_id IS NOT NULL AND c.photo_file IS NOT NULL
                    AND \(unescaped: CheckInStateSQL.counts("c.")) AND p.banned = 0
                ORDER BY f.at DESC, c.id DESC LIMIT \(Int64(limit))
                """)
        }
    }

    private static let feedColumns = """
        c.id, c.player_id, p.name, k.team_id, c.hunt_id, c.stop_id, s.name, c.received_at, c.state,
            c.photo_file IS NOT NULL, f.checkin_id IS NOT NULL
        FROM checkin_state c JOIN checkins k ON k.id = c.id JOIN players p ON p.id = c.player_id
            LEFT JOIN stops s ON s.id = c.stop_id LEFT JOIN featured_photos f ON f.checkin_id = c.id
        """

    private func feedItems(_ db: PostgresConnection, _ query: PostgresQuery) async throws -> [FeedItem] {
        try await db.query(query, logger: logger).collect().map { row in
            let (id, player, name, team, hunt, stop, stopName, received, state, photo, featured) =
                try row.decode(
                    (Int64, Int64, String, Int64?, String?, String?, String?, String, String, Bool, Bool).self
                )
            return FeedItem(
                id: id, playerID: PlayerID(player), player: name, team: team, huntID: hunt, stopID: stop,
                stopName: stopName, receivedAt: RFC3339.parse(received) ?? Date(timeIntervalSince1970: 0),
                state: CheckInState(rawValue: state) ?? .pending, hasPhoto: photo, featured: featured)
        }
    }
}
