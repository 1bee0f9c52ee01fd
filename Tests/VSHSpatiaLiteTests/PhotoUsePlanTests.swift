import Foundation
import GRDB
import Testing
import VSHCore
import VSHTestSupport

@testable import VSHSpatiaLite

/// The lookups of a picture's earlier uses (`unique_photo`) read what they need, however many
/// players sent the picture: a photo of a landmark copied from the web and sent by hundreds.
@Suite struct PhotoUsePlanTests {
    /// 300 players, each with one use of the same picture and four device fixes.
    static func crowdedLeague() async throws -> String {
        let folder = try TestSupport.temporaryDirectory("vsh-photo-plans")
        let path = folder.appendingPathComponent("vsh.sqlite").path
        let store = try SpatiaLiteStore(path: path)
        try await store.executeForTesting(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
            INSERT INTO players(id, name, name_key, created_at) SELECT i, 'P' || i, 'p' || i, 'x' FROM n;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1500)
            INSERT INTO checkins(player_id, received_at, source, verdict, points, rules, image_sha256, pixel_sha256)
            SELECT 1 + i % 300, 'x', CASE WHEN i <= 300 THEN 'photo' ELSE 'device' END, 'rejected', 0, '[]',
                CASE WHEN i <= 300 THEN 'web' END, CASE WHEN i <= 300 THEN 'web-pixels' END FROM n;
            """)
        return path
    }

    static func plan(_ path: String, _ sql: String, _ arguments: StatementArguments) async throws -> [String]
    {
        try await DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments)
                .map { $0["detail"] as String? ?? "" }
        }
    }

    /// The first use is the least id under each index: one probe each, no use gathered and sorted.
    @Test func theFirstUseIsTheLeastIdUnderEachIndex() async throws {
        let path = try await Self.crowdedLeague()
        let plan = try await Self.plan(path, TransactionHistory.photoFirstUse, ["web", "web-pixels"])
        #expect(plan.contains { $0.contains("INDEX checkins_by_image (image_sha256=?)") }, "\(plan)")
        #expect(plan.contains { $0.contains("INDEX checkins_by_pixels (pixel_sha256=?)") }, "\(plan)")
        #expect(!plan.contains { $0.contains("MULTI-INDEX OR") || $0.contains("TEMP B-TREE") }, "\(plan)")
        let first = try DatabaseQueue(path: path).read { db in
            try Row.fetchOne(db, sql: TransactionHistory.photoFirstUse, arguments: ["web", "web-pixels"])
        }
        #expect(first?[0] as Int64? == 1)
        #expect(first?[1] as Int64? == 2)
    }

    /// A player's standing use is found among that player's uses of the picture alone (the indexes
    /// keyed by picture and player, v38), not among every use of it nor every check-in of the player.
    @Test func aPlayersUsesAreFoundByPictureAndPlayer() async throws {
        let path = try await Self.crowdedLeague()
        let plan = try await Self.plan(
            path, TransactionHistory.photoStandingUse, ["web", "web-pixels", 7, nil])
        #expect(
            plan.contains {
                $0.contains("COVERING INDEX checkins_by_image (image_sha256=? AND player_id=?)")
            },
            "\(plan)")
        #expect(
            plan.contains {
                $0.contains("COVERING INDEX checkins_by_pixels (pixel_sha256=? AND player_id=?)")
            },
            "\(plan)")
        #expect(!plan.contains { $0.contains("checkins_by_player") }, "\(plan)")
        // Every use is rejected, so none stands; one approved by a review stands.
        try await SpatiaLiteStore(path: path).executeForTesting(
            """
            INSERT INTO reviews(checkin_id, moderator, decision, reason, decided_at)
                SELECT id, 'mod', 'approved', 'seen', 'x' FROM checkins WHERE player_id = 7 AND image_sha256 = 'web';
            """)
        let standing = try await DatabaseQueue(path: path).read { db in
            (
                try Int64.fetchOne(
                    db, sql: TransactionHistory.photoStandingUse, arguments: ["web", "web-pixels", 7, nil]),
                try Int64.fetchOne(
                    db, sql: TransactionHistory.photoStandingUse, arguments: ["web", "web-pixels", 8, nil]),
                try Int64.fetchOne(
                    db, sql: TransactionHistory.photoStandingUse, arguments: ["other", "web-pixels", 7, 6])
            )
        }
        #expect(standing.0 == 6)
        #expect(standing.1 == nil)
        #expect(standing.2 == nil)
    }
}
