import Foundation
internal import GRDB
import VSHCore

/// What `vsh doctor` found in a database.
public struct StoreHealth: Sendable {
    /// SQLite's `PRAGMA integrity_check` lines: `["ok"]` when the file is sound.
    public let integrity: [String]
    /// Rows that `PRAGMA foreign_key_check` reports (0 when sound).
    public let foreignKeyViolations: Int
    public let players: Int
    public let checkIns: Int
    public let stops: Int
    /// Check-ins whose photo is missing from the photo archive.
    public let missingPhotos: Int
    /// Players whose stored points differ from a rescore from their check-ins.
    public let playersWithWrongTotals: Int

    public var isHealthy: Bool {
        integrity == ["ok"] && foreignKeyViolations == 0 && missingPhotos == 0 && playersWithWrongTotals == 0
    }
}

extension GeofenceStore {
    /// Checks the database file, the audit trail's photos and the score totals.
    /// Changes nothing: the rescore it compares against is rolled back.
    public func health() throws -> StoreHealth {
        let archive = PhotoArchive(databasePath: path)
        var health: StoreHealth?
        try run {
            try queue.inTransaction(.immediate) { db in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
                let players = try Int.fetchOne(db, sql: "SELECT count(*) FROM players") ?? 0
                let checkIns = try Int.fetchOne(db, sql: "SELECT count(*) FROM checkins") ?? 0
                let stops = try Int.fetchOne(db, sql: "SELECT count(*) FROM stops") ?? 0
                var missing = 0
                for file in try String.fetchAll(
                    db, sql: "SELECT DISTINCT photo_file FROM checkins WHERE photo_file IS NOT NULL")
                where !FileManager.default.fileExists(atPath: archive.absolutePath(file)) {
                    missing += 1
                }
                let totalsSQL =
                    "SELECT p.id, coalesce((SELECT sum(points) FROM score_events e WHERE e.player_id = p.id), 0) FROM players p"
                let stored = Dictionary(
                    uniqueKeysWithValues: try Row.fetchAll(db, sql: totalsSQL).map {
                        ($0[0] as Int64, $0[1] as Int)
                    })
                // The running totals must equal the events' sums.
                let runningTotalsWrong =
                    try Int.fetchOne(
                        db,
                        sql: """
                            SELECT count(*) FROM players p
                            LEFT JOIN player_scores s ON s.player_id = p.id
                            LEFT JOIN (SELECT player_id, SUM(points) AS points, SUM(kind = 'bonus') AS hunts, SUM(kind = 'stop') AS stops,
                                           SUM(kind = 'badge') AS badges, MAX(at_epoch) AS reached
                                       FROM score_events GROUP BY player_id) e ON e.player_id = p.id
                            WHERE s.points IS NOT e.points OR s.hunts IS NOT e.hunts OR s.stops IS NOT e.stops
                                OR s.badges IS NOT e.badges OR s.reached IS NOT e.reached
                            """) ?? 0
                try Self.rescoreEveryone(db)
                let rescored = try Row.fetchAll(db, sql: totalsSQL).map { ($0[0] as Int64, $0[1] as Int) }
                let wrong = max(runningTotalsWrong, rescored.filter { stored[$0.0] != $0.1 }.count)
                health = StoreHealth(
                    integrity: integrity, foreignKeyViolations: violations, players: players,
                    checkIns: checkIns, stops: stops,
                    missingPhotos: missing, playersWithWrongTotals: wrong)
                return .rollback
            }
        }
        guard let health else {
            throw InputError("\(path): the health check did not run", status: .internalError)
        }
        return health
    }
}
