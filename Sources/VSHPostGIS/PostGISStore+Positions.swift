public import Foundation
internal import PostgresNIO
public import VSHCore

extension PostGISStore {
    /// Records a player's position in a hunt, replacing the one before.
    public func recordPosition(_ position: PlayerPosition) async throws {
        let at = RFC3339.format(position.at)
        let epoch = position.at.timeIntervalSince1970
        try await transaction { db in
            try await db.query(
                """
                INSERT INTO positions(hunt_id, player_id, lat, lon, accuracy_m, at, at_epoch)
                VALUES (\(position.huntID), \(position.playerID.rawValue), \(position.lat), \(position.lon),
                    \(position.accuracyMeters), \(at), \(epoch))
                ON CONFLICT (hunt_id, player_id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,
                    accuracy_m = excluded.accuracy_m, at = excluded.at, at_epoch = excluded.at_epoch
                """, logger: self.logger)
        }
    }

    /// The hunt's positions since `since`, newest first, without banned or erased players.
    public func positions(huntID: String, since: Date) async throws -> [PlayerPosition] {
        let epoch = since.timeIntervalSince1970
        return try await read { db in
            try await db.query(
                """
                SELECT q.player_id, p.name, q.lat, q.lon, q.accuracy_m, q.at FROM positions q
                JOIN players p ON p.id = q.player_id
                WHERE q.hunt_id = \(huntID) AND q.at_epoch >= \(epoch) AND p.banned = 0 AND p.erased = 0
                ORDER BY q.at_epoch DESC, q.player_id DESC
                """, logger: self.logger
            ).collect().map { row in
                let (id, name, lat, lon, accuracy, at) = try row.decode(
                    (Int64, String, Double, Double, Double, String).self)
                return PlayerPosition(
                    playerID: PlayerID(id), player: name, huntID: huntID, lat: lat, lon: lon,
                    accuracyMeters: accuracy,
                    at: RFC3339.parse(at) ?? Date(timeIntervalSince1970: 0))
            }
        }
    }

    /// Deletes the hunt's positions.
    @discardableResult
    public func forgetPositions(huntID: String) async throws -> Int {
        try await transaction { db in
            let rows = try await db.query(
                "DELETE FROM positions WHERE hunt_id = \(huntID) RETURNING player_id", logger: self.logger
            ).collect()
            return rows.count
        }
    }
}
