public import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Records a player's position in a hunt, replacing the one before.
    public func recordPosition(_ position: PlayerPosition) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO positions(hunt_id, player_id, lat, lon, accuracy_m, at, at_epoch)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (hunt_id, player_id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,
                        accuracy_m = excluded.accuracy_m, at = excluded.at, at_epoch = excluded.at_epoch
                    """,
                arguments: [
                    position.huntID, position.playerID.rawValue, position.lat, position.lon,
                    position.accuracyMeters,
                    RFC3339.format(position.at), position.at.timeIntervalSince1970,
                ])
        }
    }

    /// The hunt's positions since `since`, newest first, without banned or erased players.
    public func positions(huntID: String, since: Date) async throws -> [PlayerPosition] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT q.player_id, p.name, q.lat, q.lon, q.accuracy_m, q.at FROM positions q
                    JOIN players p ON p.id = q.player_id
                    WHERE q.hunt_id = ? AND q.at_epoch >= ? AND p.banned = 0 AND p.erased = 0
                    ORDER BY q.at_epoch DESC, q.player_id DESC
                    """, arguments: [huntID, since.timeIntervalSince1970]
            ).map { row in
                PlayerPosition(
                    playerID: PlayerID(row[0] as Int64), player: row[1], huntID: huntID, lat: row[2],
                    lon: row[3],
                    accuracyMeters: row[4],
                    at: RFC3339.parse(row[5] as String) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// Deletes the hunt's positions.
    @discardableResult
    public func forgetPositions(huntID: String) async throws -> Int {
        try await write { db in
            try db.execute(sql: "DELETE FROM positions WHERE hunt_id = ?", arguments: [huntID])
            return db.changesCount
        }
    }
}
