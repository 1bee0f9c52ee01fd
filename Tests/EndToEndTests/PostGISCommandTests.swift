import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Every command with `--db postgres://…`: the demo's session on a SpatiaLite file and on a
/// PostGIS database gives the same output, line for line, and the same exit statuses.
@Suite struct PostGISCommandTests {
    @Test func theDemoSessionAnswersAlikeOnBothBackends() async throws {
        let cluster = try PostgresCluster.shared()
        let file = try Workspace()
        let postGIS = try Workspace(database: try cluster.database())
        let fixtures = TestSupport.packageRoot.appendingPathComponent("Fixtures").path
        let now = ["--now", "2026-11-21T20:00:00Z"]
        let steps: [[String]] = [
            ["hunts"], ["hunt", "downtown-fremont"], ["locate", "36.082014", "-115.172734"],
            ["locate", "36.1160", "-115.1760", "--json"],
            ["player", "add", "Ann Lee"], ["player", "add", "Bo Chen"], ["player", "add", "Cy Reyes"],
            ["player", "add", "ann lee"],
            ["checkin", "--player", "Ann Lee", "--photo", fixtures + "/photos/sign-inside.jpg"] + now,
            ["checkin", "--player", "Bo Chen", "--photo", fixtures + "/photos/sign-vertex.jpg"] + now,
            ["checkin", "--player", "Bo Chen", "--photo", fixtures + "/photos/sign-retagged.jpg"] + now,
            ["checkin", "--player", "Cy Reyes", "--photo", fixtures + "/photos/sphere-camera-clock.jpg"]
                + now,
            ["checkin", "--player", "Cy Reyes", "--photo", fixtures + "/photos/poor-accuracy.jpg", "--json"]
                + now,
            // Another player's copy of Ann's photo.
            ["checkin", "--player", "Bo Chen", "--photo", fixtures + "/photos/sign-inside.jpg"] + now,
            [
                "checkin", "--player", "Ann Lee", "--fix", "36.1706,-115.1445", "--time",
                "2026-11-21T19:59:00Z",
                "--accuracy", "6",
            ] + now,
            ["player", "add", "Dee Walker"],
            [
                "replay", fixtures + "/walks/downtown-complete.gpx", "--player", "Dee Walker", "--hunt",
                "downtown-fremont",
            ],
            ["review", "list"],
            ["review", "approve", "5", "--moderator", "demo", "--reason", "the fountains are in the picture"]
                + now,
            ["review", "approve", "5", "--moderator", "demo", "--reason", "again"] + now,
            ["players"], ["profile", "Dee Walker"], ["profile", "Cy Reyes", "--json"], ["leaderboard"],
            ["leaderboard", "--hunt", "strip-classics", "--json"], ["leaderboard", "--format", "csv"],
            ["leaderboard", "rescore"], ["doctor"], ["doctor", "--json"],
            ["collage", "--player", "Cy Reyes", "--hunt", "strip-classics", "-o", "collage.jpg"],
        ]
        func same(_ text: String, _ workspace: Workspace) -> String {
            text.replacingOccurrences(of: workspace.db + ".photos/", with: "PHOTOS/")
                .replacingOccurrences(of: "photos:", with: "PHOTOS/")
                .replacingOccurrences(of: workspace.db, with: "DB")
                .replacingOccurrences(of: workspace.root.path, with: "ROOT")
                .replacing(#/"created_at":"[^"]+"/#, with: "CREATED")
        }
        var statuses = Set<Int32>()
        for step in steps {
            let onFile = try file.vsh(step)
            let onPostGIS = try postGIS.vsh(step)
            statuses.insert(onFile.status)
            #expect(onFile.status == onPostGIS.status, "\(step): \(onPostGIS.stderr)")
            #expect(same(onFile.stdout, file) == same(onPostGIS.stdout, postGIS), "\(step)")
            #expect(same(onFile.stderr, file) == same(onPostGIS.stderr, postGIS), "\(step)")
        }
        // Accepted, rejected, pending and a refused name all happened.
        #expect(statuses.isSuperset(of: [0, 1, 2, 65]), "\(statuses)")
        let collage = try Data(contentsOf: postGIS.root.appendingPathComponent("collage.jpg"))
        #expect(collage.starts(with: [0xFF, 0xD8]))
        // The photos are in the database, not beside it.
        let name = String(postGIS.db.split(separator: "/").last!)
        let archived = try FileManager.default.subpathsOfDirectory(atPath: file.db + ".photos").filter {
            $0.hasSuffix(".jpg")
        }
        #expect(archived.count >= 4)
        let keys = try cluster.psql(name, "SELECT key FROM photos ORDER BY key").stdout
        #expect(keys.split(separator: "\n").map(String.init) == archived.sorted())
    }

    /// A URL that cannot be used is one clear line, without the password, and the right exit
    /// status: 64 for a malformed URL or TLS asked for, 66 for a server or database not there.
    @Test func badURLsAreClearErrors() async throws {
        let cluster = try PostgresCluster.shared()
        let workspace = try Workspace()
        let closed = try TestSupport.freePort()
        for (url, status, words) in [
            ("postgres://ann:hunter2@127.0.0.1:\(closed)/vsh", Int32(66), "cannot reach PostgreSQL"),
            ("postgres://postgres:hunter2@127.0.0.1:\(cluster.port)/no_such_db", 66, "does not exist"),
            ("postgres://postgres@127.0.0.1:\(cluster.port)/x?sslmode=require", 64, "sslmode=require"),
            ("postgres://", 64, "not a PostgreSQL URL"),
        ] {
            let result = try TestSupport.run(
                "vsh", ["leaderboard", "--db", url], currentDirectory: workspace.root)
            #expect(result.status == status, "\(url): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains("hunter2"))
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
