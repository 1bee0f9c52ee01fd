import Foundation
import GRDB
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHSpatiaLite

/// A ledger's question about earlier days (`LocalDaysQuestion`: on which local days did the
/// player's other check-ins count?) reads the player's check-ins in the question's window alone,
/// through `checkins_live_by_clock` (v41), however long the player's history: every accepted
/// check-in of a player who keeps checking in asks one.
@Suite struct LiveByClockPlanTests {
    /// Two players with 5,000 check-ins each, an hour apart: the clock a day after the fix in
    /// every tenth, no clock in every seventh; some rejected, some pending.
    static func league() async throws -> String {
        let folder = try TestSupport.temporaryDirectory("vsh-clock-plans")
        let path = folder.appendingPathComponent("vsh.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        try await store.executeForTesting(
            """
            INSERT INTO players(id, name, name_key, created_at) VALUES (1, 'Ann', 'ann', 'x'), (2, 'Bo', 'bo', 'x');
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
            INSERT INTO checkins(player_id, received_at, source, lat, lon, fix_time, fix_epoch, hunt_id, stop_id,
                verdict, points, rules, clock_epoch)
            SELECT 1 + i % 2, 'x', 'device', 36.1, -115.1, 'x', 1.7e9 + (i / 2) * 3600, 'h', 's',
                CASE WHEN i % 11 = 0 THEN 'rejected' WHEN i % 17 = 0 THEN 'pending' ELSE 'accepted' END, 0, '[]',
                CASE WHEN i % 7 = 0 THEN NULL WHEN i % 10 = 0 THEN 1.7e9 + (i / 2) * 3600 + 86400
                ELSE 1.7e9 + (i / 2) * 3600 END
            FROM n;
            """)
        return path
    }

    @Test func aWindowIsReadThroughTheClockIndex() async throws {
        let path = try await Self.league()
        for analyzed in [false, true] {
            if analyzed { try await DatabaseQueue(path: path).write { try $0.execute(sql: "ANALYZE") } }
            let plan = try await PhotoUsePlanTests.plan(
                path, SpatiaLiteStore.checkInsInClockWindow, [1, 1.7e9, 1.7e9 + 86400])
            let search = "INDEX checkins_live_by_clock (player_id=? AND <expr>>? AND <expr><?)"
            #expect(plan.contains { $0.contains(search) }, "analyzed: \(analyzed), \(plan)")
            #expect(!plan.contains { $0.contains("checkins_live_by_player") }, "\(plan)")
        }
    }

    /// The rows are those whose clock (else the fix's time) is in the window, of that player, and
    /// only live ones that count: the same as a scan of the whole history finds.
    @Test func theWindowHoldsWhatAScanFinds() async throws {
        let path = try await Self.league()
        try await SpatiaLiteStore(path: path).executeForTesting(
            """
            INSERT INTO reviews(checkin_id, moderator, decision, reason, decided_at)
                SELECT id, 'mod', 'revoked', 'seen', 'x' FROM checkins WHERE id % 13 = 0;
            """)
        let counts =
            "state IN (" + CheckInState.all(\.counts).map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"
        let low = 1.7e9 + 100 * 3600
        let high = 1.7e9 + 160 * 3600
        let (window, scan) = try await DatabaseQueue(path: path).read { db in
            (
                try Int64.fetchAll(
                    db, sql: "SELECT id FROM (\(SpatiaLiteStore.checkInsInClockWindow)) ORDER BY id",
                    arguments: [1, low, high]),
                // Without the verdicts the partial index holds, this cannot read through it.
                try Int64.fetchAll(
                    db,
                    sql: """
                        SELECT id FROM checkin_state
                        WHERE player_id = 1 AND \(counts) AND coalesce(clock_epoch, fix_epoch) >= ?1
                            AND coalesce(clock_epoch, fix_epoch) <= ?2
                        ORDER BY id
                        """, arguments: [low, high])
            )
        }
        #expect(window.count > 40, "\(window.count)")
        #expect(window == scan)
        // A clock a day after its fix puts a check-in in the window whose fix is before it.
        let early = try await DatabaseQueue(path: path).read { db in
            try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM checkin_state
                    WHERE player_id = 1 AND \(counts) AND fix_epoch < ? AND clock_epoch >= ?
                    """,
                arguments: [low, low])
        }
        #expect(!early.isEmpty && early.allSatisfy(window.contains))
    }
}
