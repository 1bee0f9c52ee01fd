import Foundation
internal import GRDB
public import VSHCore

extension SpatiaLiteStore {
    /// Checks the database file (`PRAGMA integrity_check`, `foreign_key_check`), the audit
    /// trail's photos and the score totals. Changes nothing: the rescore it compares against is rolled back.
    /// On a read-only database (read-only media) the totals are checked against the score events
    /// only: a rescore cannot run even in a transaction that is rolled back.
    public func health(photos: any PhotoStore) async throws -> StoreHealth {
        let readOnly = database.readOnly
        let check: @Sendable (Database) throws -> StoreHealth = { db in
            var integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
            if try Int.fetchOne(
                db, sql: "SELECT count(*) FROM sync_state WHERE key = ?",
                arguments: [CopiedTable.incompleteMarker])
                != 0
            {
                integrity.append("a vsh db copy into this database did not finish: remove it and copy again")
            }
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count
            let players = try Int.fetchOne(db, sql: "SELECT count(*) FROM players") ?? 0
            let checkIns = try Int.fetchOne(db, sql: "SELECT count(*) FROM checkins") ?? 0
            let stops = try Int.fetchOne(db, sql: "SELECT count(*) FROM stops") ?? 0
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
            // And each hunt's, both ways: every player and hunt with events has its row, equal to
            // their sums, and no row is left without events.
            let huntTotalsWrong =
                try Int.fetchOne(
                    db,
                    sql: """
                        WITH e AS (SELECT player_id, hunt_id, SUM(points) AS points, SUM(kind = 'bonus') AS hunts,
                                       SUM(kind = 'stop') AS stops, SUM(kind = 'badge') AS badges, MAX(at_epoch) AS reached
                                   FROM score_events GROUP BY player_id, hunt_id)
                        SELECT count(DISTINCT player_id) FROM (
                            SELECT e.player_id FROM e LEFT JOIN hunt_scores s ON s.player_id = e.player_id AND s.hunt_id = e.hunt_id
                            WHERE s.points IS NOT e.points OR s.hunts IS NOT e.hunts OR s.stops IS NOT e.stops
                                OR s.badges IS NOT e.badges OR s.reached IS NOT e.reached
                            UNION ALL
                            SELECT s.player_id FROM hunt_scores s
                            WHERE NOT EXISTS (SELECT 1 FROM e WHERE e.player_id = s.player_id AND e.hunt_id = s.hunt_id))
                        """) ?? 0
            var wrong = max(runningTotalsWrong, huntTotalsWrong)
            // Teams' running totals: every team's row as a rescore writes it, both ways.
            let teamsSQL =
                "SELECT team_id, hunt_id, points, stops, completed, badges, reached FROM team_scores"
            let teamRows = { () throws -> [Int64: [DatabaseValue]] in
                Dictionary(
                    try Row.fetchAll(db, sql: teamsSQL).map { ($0[0] as Int64, Array($0.databaseValues)) },
                    uniquingKeysWith: { a, _ in a })
            }
            let storedTeams = try teamRows()
            var wrongTeams = 0
            if !readOnly {
                try Self.rescoreEveryone(db)
                let rescored = try Row.fetchAll(db, sql: totalsSQL).map { ($0[0] as Int64, $0[1] as Int) }
                wrong = max(wrong, rescored.filter { stored[$0.0] != $0.1 }.count)
                let rescoredTeams = try teamRows()
                wrongTeams =
                    Set(storedTeams.keys).union(rescoredTeams.keys).filter {
                        storedTeams[$0] != rescoredTeams[$0]
                    }.count
            }
            var health = StoreHealth(
                integrity: integrity, foreignKeyViolations: violations, players: players,
                checkIns: checkIns, stops: stops,
                missingPhotos: 0, playersWithWrongTotals: wrong)
            health.teamsWithWrongTotals = wrongTeams
            return health
        }
        var health = try await readOnly ? read(check) : database.writeAndRollBack(check)
        let files = try await read {
            try String.fetchAll(
                $0,
                sql: """
                    SELECT DISTINCT photo_file FROM checkins WHERE photo_file IS NOT NULL
                        AND player_id NOT IN (SELECT id FROM players WHERE erased = 1)
                    """)
        }
        for file in files {
            switch try await photos.condition(of: file) {
            case .missing: health.missingPhotos += 1
            case .damaged: health.damagedPhotos += 1
            case .intact: break
            }
        }
        return health
    }
}
