public import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Records an adjustment.
    public func adjust(
        _ subject: Adjustment.Subject, huntID: String?, points: Int, reason: String, by: String, at now: Date
    ) async throws -> Adjustment {
        let at = RFC3339.format(now)
        let (player, team) = Self.columns(subject)
        let id = try await write { db -> Int64 in
            try db.execute(
                sql: """
                    INSERT INTO adjustments(player_id, team_id, hunt_id, points, reason, by_name, at, at_epoch)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [player, team, huntID, points, reason, by, at, now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
        return Adjustment(
            id: id, subject: subject, huntID: huntID, points: points, reason: reason, by: by,
            at: RFC3339.parse(at) ?? now)
    }

    /// A player's or team's adjustments.
    public func adjustments(of subject: Adjustment.Subject) async throws -> [Adjustment] {
        let (player, team) = Self.columns(subject)
        return try await read { db in
            try Self.adjustments(
                db, where: "player_id IS ? AND team_id IS ?", [player, team])
        }
    }

    /// A hunt's adjustments.
    public func adjustments(huntID: String) async throws -> [Adjustment] {
        try await read { db in try Self.adjustments(db, where: "hunt_id = ?", [huntID]) }
    }

    private static func columns(_ subject: Adjustment.Subject) -> (Int64?, Int64?) {
        switch subject {
        case .player(let id): return (id.rawValue, nil)
        case .team(let id): return (nil, id)
        }
    }

    private static func adjustments(_ db: Database, where condition: String, _ arguments: StatementArguments)
        throws -> [Adjustment]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, player_id, team_id, hunt_id, points, reason, by_name, at FROM adjustments
                WHERE \(condition) ORDER BY id
                """, arguments: arguments
        ).map { row in
            let player: Int64? = row[1]
            let team: Int64? = row[2]
            return Adjustment(
                id: row[0], subject: player.map { .player(PlayerID($0)) } ?? .team(team ?? 0), huntID: row[3],
                points: row[4], reason: row[5], by: row[6],
                at: RFC3339.parse(row[7] as String) ?? Date(timeIntervalSince1970: 0))
        }
    }
}
