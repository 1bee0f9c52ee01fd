public import Foundation
internal import PostgresNIO
public import VSHCore

extension PostGISStore {
    /// Records an adjustment.
    public func adjust(
        _ subject: Adjustment.Subject, huntID: String?, points: Int, reason: String, by: String, at now: Date
    ) async throws -> Adjustment {
        let at = RFC3339.format(now)
        let (player, team) = Self.columns(subject)
        let id = try await transaction { db -> Int64 in
            try await db.query(
                """
                INSERT INTO adjustments(player_id, team_id, hunt_id, points, reason, by_name, at, at_epoch)
                VALUES (\(player), \(team), \(huntID), \(Int64(points)), \(reason), \(by), \(at), \(now.timeIntervalSince1970))
                RETURNING id
                """, logger: self.logger
            ).collect().first?.decode(Int64.self) ?? 0
        }
        return Adjustment(
            id: id, subject: subject, huntID: huntID, points: points, reason: reason, by: by,
            at: RFC3339.parse(at) ?? now)
    }

    /// A player's or team's adjustments.
    public func adjustments(of subject: Adjustment.Subject) async throws -> [Adjustment] {
        let (player, team) = Self.columns(subject)
        return try await read { db in
            try await self.adjustments(
                db,
                """
                SELECT id, player_id, team_id, hunt_id, points, reason, by_name, at FROM adjustments
                WHERE player_id IS NOT DISTINCT FROM \(player)::int8 AND team_id IS NOT DISTINCT FROM \(team)::int8
                ORDER BY id
                """)
        }
    }

    /// A hunt's adjustments.
    public func adjustments(huntID: String) async throws -> [Adjustment] {
        try await read { db in
            try await self.adjustments(
                db,
                """
                SELECT id, player_id, team_id, hunt_id, points, reason, by_name, at FROM adjustments
                WHERE hunt_id = \(huntID) ORDER BY id
                """)
        }
    }

    private static func columns(_ subject: Adjustment.Subject) -> (Int64?, Int64?) {
        switch subject {
        case .player(let id): return (id.rawValue, nil)
        case .team(let id): return (nil, id)
        }
    }

    private func adjustments(_ db: PostgresConnection, _ query: PostgresQuery) async throws -> [Adjustment] {
        try await db.query(query, logger: logger).collect().map { row in
            let (id, player, team, hunt, points, reason, by, at) = try row.decode(
                (Int64, Int64?, Int64?, String?, Int64, String, String, String).self)
            return Adjustment(
                id: id, subject: player.map { .player(PlayerID($0)) } ?? .team(team ?? 0), huntID: hunt,
                points: Int(points), reason: reason, by: by,
                at: RFC3339.parse(at) ?? Date(timeIntervalSince1970: 0))
        }
    }
}
