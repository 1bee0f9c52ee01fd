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

    /// SQL adding players 1 to `count` (named P1, P2, …) unless they are there.
    static func players(_ count: Int) -> String {
        """
        INSERT INTO players(id, name, name_key, created_at)
        SELECT p, 'P' || p, 'p' || p, '2026-01-01T00:00:00Z' FROM generate_series(1, \(count)) AS p
        ON CONFLICT DO NOTHING;
        """
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
                \(Self.players(200))
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
                \(Self.players(300))
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

    /// Every 16-bit value within two bits of each quarter of a hash, and nothing else.
    @Test func aQuartersNeighboursAreEveryValueWithinTwoBits() {
        let hash: UInt64 = 0x0123_4567_89AB_CDEF
        let near = NearCopySQL.near(hash)
        #expect(near.count == 4)
        for (quarter, values) in near.enumerated() {
            let own = Int64((hash >> UInt64(48 - 16 * quarter)) & 0xFFFF)
            let expected = (0...0xFFFF).filter { (Int64($0) ^ own).nonzeroBitCount <= 2 }.map(Int64.init)
            #expect(values.sorted() == expected, "quarter \(quarter)")
            #expect(values.count == 137)
        }
    }

    /// Near copies are found through the hash's quarters (schema version 29), with the same answers
    /// as comparing every picture: over 20,000 pictures, hashes 1, 10 (spread over the quarters as
    /// evenly as ten bits go: 3, 3, 2, 2; or all in one), 11 and about 32 bits from the one asked.
    @Test func nearCopiesAreFoundThroughTheHashsQuarters() async throws {
        let (cluster, store, database) = try await Self.league()
        defer { store.close() }
        var random = SplitMix64(seed: 29)
        // Bits to flip: `counts[q]` bits in quarter q (high to low).
        func flips(_ counts: [Int]) -> UInt64 {
            var mask: UInt64 = 0
            for (quarter, count) in counts.enumerated() {
                for bit in 0..<count { mask |= 1 << UInt64(48 - 16 * quarter + 5 * bit % 16) }
            }
            return mask
        }
        let patterns = [
            [1, 0, 0, 0], [3, 3, 2, 2], [0, 0, 0, 10], [2, 3, 3, 2], [3, 3, 3, 2], [0, 11, 0, 0],
        ]
        var asked: [UInt64] = []
        var planted: [String] = []
        for (index, pattern) in patterns.enumerated() {
            let base = random.next()
            #expect(flips(pattern).nonzeroBitCount == pattern.reduce(0, +))
            asked.append(base)
            planted.append("(\(Int64(bitPattern: base ^ flips(pattern))), \(index))")
        }
        asked += (0..<20).map { _ in random.next() }
        let setup = try cluster.psql(
            database,
            """
            \(Self.players(200))
            INSERT INTO checkins(player_id, received_at, source, verdict, points, rules, image_sha256,
                pixel_sha256, phash)
            SELECT 1 + i % 200, '2026-01-01T00:00:00Z', 'photo', 'accepted', 0, '[]', 'i' || i, 'p' || i,
                hashtextextended(i::text, 7)
            FROM generate_series(1, 20000) AS i;
            INSERT INTO checkins(player_id, received_at, source, verdict, points, rules, image_sha256,
                pixel_sha256, phash)
            SELECT 1, '2026-01-01T00:00:00Z', 'photo', 'accepted', 0, '[]', 'planted' || n, 'planted' || n, h
            FROM (VALUES \(planted.joined(separator: ", "))) AS t(h, n);
            ANALYZE checkins;
            """)
        #expect(setup.status == 0, "\(setup.stderr)")
        func array(_ values: [Int64]) -> String { "'{\(values.map(String.init).joined(separator: ","))}'" }
        var found = 0
        for hash in asked {
            let signed = Int64(bitPattern: hash)
            let near = NearCopySQL.near(hash)
            let rows = try cluster.psql(
                database,
                """
                PREPARE near(int8, int8[], int8[], int8[], int8[], int8, text, text) AS \(NearCopySQL.sql);
                EXECUTE near(\(signed), \(near.map(array).joined(separator: ", ")), 0, 'none', 'none');
                SELECT 'every picture';
                SELECT id, bit_count((phash # \(signed))::bit(64))::int8 AS bits FROM checkins
                WHERE phash IS NOT NULL AND bit_count((phash # \(signed))::bit(64)) <= \(NearCopy.maxBits)
                ORDER BY bits, id LIMIT 1;
                """)
            #expect(rows.status == 0, "\(rows.stderr)")
            let parts = rows.stdout.components(separatedBy: "every picture\n")
            #expect(parts.count == 2 && parts[0] == parts[1], "\(hash): \(rows.stdout)")
            if parts.first?.isEmpty == false { found += 1 }
        }
        // The planted 1 and 10 bits found; 11 and 11 in one quarter not.
        #expect(found >= 4, "\(found)")
        for mode in ["force_custom_plan", "force_generic_plan"] {
            let near = NearCopySQL.near(asked[1])
            let plan = try cluster.psql(
                database,
                """
                SET plan_cache_mode = \(mode);
                PREPARE near(int8, int8[], int8[], int8[], int8[], int8, text, text) AS \(NearCopySQL.sql);
                EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
                    EXECUTE near(\(Int64(bitPattern: asked[1])), \(near.map(array).joined(separator: ", ")), 0, 'none', 'none');
                """)
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(!plan.stdout.contains("Seq Scan on checkins"), "\(mode)\n\(plan.stdout)")
            for quarter in 0..<4 {
                #expect(plan.stdout.contains("checkins_phash_q\(quarter)"), "\(mode)\n\(plan.stdout)")
            }
        }
    }
}
