import Foundation
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHPostGIS

/// The plans PostgreSQL makes for the statements of a check-in group.
@Suite struct PostGISPlanTests {
    /// The check-ins a badge of days in a row looks at are found by the player and the badges'
    /// clock (schema version 8), not by reading every live check-in of the player.
    @Test func dayCandidatesAreFoundByTheBadgesClock() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.database()
        let store = try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait)
        defer { store.close() }
        let database = String(url.split(separator: "/").last!)
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
}
