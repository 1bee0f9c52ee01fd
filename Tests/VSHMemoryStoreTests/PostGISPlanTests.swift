import Foundation
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHPostGIS

/// The plans PostgreSQL makes for the statements of a check-in group.
@Suite struct PostGISPlanTests {
    /// A new league on the tests' cluster: the cluster, the store and the database's name.
    static func league() async throws -> (PostgresCluster, PostGISStore, String) {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.database()
        let store = try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait)
        return (cluster, store, String(url.split(separator: "/").last!))
    }

    /// The check-ins a badge of days in a row looks at are found by the player and the badges'
    /// clock (schema version 8), not by reading every live check-in of the player.
    @Test func dayCandidatesAreFoundByTheBadgesClock() async throws {
        let (cluster, store, database) = try await Self.league()
        defer { store.close() }
        // Many live check-ins of one player over a year, none in the asked range's day.
        let rows = try cluster.psql(
            database,
            """
            INSERT INTO players(id, name, name_key, created_at) VALUES (1, 'Ann', 'ann', '2026-01-01T00:00:00Z');
            INSERT INTO checkins(player_id, received_at, source, lat, lon, fix_time, fix_epoch, hunt_id, stop_id,
                verdict, points, rules, clock_epoch)
            SELECT 1, '2026-01-01T00:00:00Z', 'device', 36.1, -115.1, '2026-01-01T00:00:00Z', 1.7e9 + i * 3600,
                'h', 's', 'accepted', 0, '[]', 1.7e9 + i * 3600
            FROM generate_series(1, 5000) AS i;
            ANALYZE checkins;
            PREPARE days(int8[], int8[], float8[], float8[]) AS \(GroupDayCandidatesSQL.sql);
            EXPLAIN EXECUTE days('{1}', '{0}', '{1600000000}', '{1600100000}');
            """)
        #expect(rows.status == 0, "\(rows.stderr)")
        #expect(rows.stdout.contains("checkins_live_by_clock"), "\(rows.stdout)")
    }

    /// The fix just before and just after a time are found by walking the player's live index in
    /// time order and stopping at the first, whatever the player's history, in the plan made for
    /// the values and in the generic one PostgreSQL keeps after five runs: not by reading every
    /// earlier (or later) live check-in of the player and sorting them.
    @Test func neighbourFixesStopAtTheFirstInTimeOrder() async throws {
        let (cluster, store, database) = try await Self.league()
        defer { store.close() }
        // 200 players with 100 live check-ins each, a minute apart in turn; player 1's fixes
        // around check-ins 1,000 and 10,000 (5 and 50 of them before, 95 and 50 after).
        for mode in ["force_custom_plan", "force_generic_plan"] {
            let rows = try cluster.psql(
                database,
                """
                INSERT INTO players(id, name, name_key, created_at)
                SELECT p, 'P' || p, 'p' || p, '2026-01-01T00:00:00Z' FROM generate_series(1, 200) AS p
                ON CONFLICT DO NOTHING;
                INSERT INTO checkins(player_id, received_at, source, lat, lon, fix_time, fix_epoch, hunt_id,
                    stop_id, verdict, points, rules, clock_epoch)
                SELECT 1 + i % 200, '2026-01-01T00:00:00Z', 'device', 36.1, -115.1, '2026-01-01T00:00:00Z',
                    1.7e9 + i * 60, 'h', 's', 'accepted', 0, '[]', 1.7e9 + i * 60
                FROM generate_series(1, 20000) AS i WHERE NOT EXISTS (SELECT 1 FROM checkins);
                ANALYZE;
                SET plan_cache_mode = \(mode);
                PREPARE one(int8, float8, int8) AS \(NeighboursSQL.sql);
                PREPARE many(int8[], float8[], int8[]) AS \(GroupNeighboursSQL.sql);
                EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE one(1, 1.7e9 + 60000, 0);
                EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                    EXECUTE many('{1,1}', '{1700060000,1700600000}', '{0,0}');
                """)
            #expect(rows.status == 0, "\(rows.stderr)")
            // Each scan of check-ins gives at most one row a loop, and nothing sorts their fixes.
            let scans = rows.stdout.split(separator: "\n").filter {
                $0.contains("Scan") && $0.contains("checkins")
            }
            #expect(scans.count == 4, "\(mode)\n\(rows.stdout)")
            for scan in scans {
                #expect(scan.contains("Index Scan"), "\(mode)\n\(rows.stdout)")
                #expect(scan.contains("rows=1 ") || scan.contains("rows=0 "), "\(mode)\n\(rows.stdout)")
            }
            #expect(!rows.stdout.contains("Sort Key: c.fix_epoch"), "\(mode)\n\(rows.stdout)")
        }
    }

    /// A picture's uses are found through the indexes keyed by picture and player (schema version
    /// 28), in the plan made for the values and in the generic one: with 300 players' uses of one
    /// picture at the end of 3,000 check-ins, a player's standing use reads that player's rows
    /// alone, the first use the picture's, and neither walks the table in id order or scans it.
    @Test func aPicturesUsesAreFoundByPictureAndPlayer() async throws {
        let (cluster, store, database) = try await Self.league()
        defer { store.close() }
        for mode in ["force_custom_plan", "force_generic_plan"] {
            let rows = try cluster.psql(
                database,
                """
                INSERT INTO players(id, name, name_key, created_at)
                SELECT p, 'P' || p, 'p' || p, '2026-01-01T00:00:00Z' FROM generate_series(1, 300) AS p
                ON CONFLICT DO NOTHING;
                INSERT INTO checkins(player_id, received_at, source, verdict, points, rules, image_sha256,
                    pixel_sha256)
                SELECT 1 + i % 300, '2026-01-01T00:00:00Z', CASE WHEN i > 2700 THEN 'photo' ELSE 'device' END,
                    'rejected', 0, '[]', CASE WHEN i > 2700 THEN 'web' END, CASE WHEN i > 2700 THEN 'web-px' END
                FROM generate_series(1, 3000) AS i WHERE NOT EXISTS (SELECT 1 FROM checkins);
                ANALYZE;
                SET plan_cache_mode = \(mode);
                PREPARE first(text, text) AS \(PhotoFirstUseSQL.sql);
                PREPARE standing(text, text, int8, int8) AS \(PhotoStandingUseSQL.sql);
                EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE first('web', 'web-px');
                SELECT 'standing';
                EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) EXECUTE standing('web', 'web-px', 7, 0);
                """)
            #expect(rows.status == 0, "\(rows.stderr)")
            let parts = rows.stdout.components(separatedBy: "standing")
            #expect(parts.count == 2, "\(rows.stdout)")
            let (first, standing) = (parts[0], parts.last ?? "")
            for plan in [first, standing] {
                #expect(plan.contains("checkins_by_image"), "\(mode)\n\(plan)")
                #expect(plan.contains("checkins_by_pixels"), "\(mode)\n\(plan)")
                #expect(!plan.contains("Seq Scan on checkins"), "\(mode)\n\(plan)")
                // The table's own index only to fetch rows by id, one a loop.
                for scan in plan.split(separator: "\n") where scan.contains("checkins_pkey") {
                    #expect(scan.contains("rows=1 ") || scan.contains("rows=0 "), "\(mode)\n\(plan)")
                }
            }
            #expect(!standing.contains("Bitmap"), "\(mode)\n\(standing)")
            for scan in standing.split(separator: "\n") where scan.contains("checkins_by_") {
                #expect(scan.contains("rows=1 ") || scan.contains("rows=0 "), "\(mode)\n\(standing)")
            }
        }
    }
}
