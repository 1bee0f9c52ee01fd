import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `vsh serve` on PostgreSQL when the database server goes away and comes back: every request is
/// answered within the busy timeout (503, Retry-After, problem+json), nothing is recorded half,
/// service resumes by itself, and SIGTERM during an outage still exits 0.
@Suite struct PostGISOutageTests {
    @Test func aDatabaseThatGoesAwayGives503AndServiceResumes() async throws {
        let cluster = try PostgresCluster()
        defer { try? cluster.stop() }
        let workspace = try Workspace(database: try cluster.database())
        let server = try ServedVSH(
            workspace: workspace, extra: ["--now", fixtureNow], environment: ["VSH_BUSY_TIMEOUT": "2"])
        defer { server.stop() }
        let token = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Chen", email: "bo@example.org")
        let session = URLSession(configuration: .ephemeral)
        func fix(_ lat: String, _ lon: String) -> [(String, String)] {
            [("lat", lat), ("lon", lon), ("accuracy_m", "8"), ("fix_time", "2026-11-21T19:59:00Z")]
        }
        let sign = try await TwoInstanceTests.checkIn(
            server.base, token: token, session: session, fields: fix("36.082014", "-115.172734"))
        #expect(sign.status == 201)

        try cluster.pause()
        let health = try await server.call("GET", "/healthz")
        #expect(health.status == 503, "\(health.body)")
        #expect(health.headers["retry-after"] == "1")
        #expect(health.headers["content-type"] == "application/problem+json")
        let refused = try await TwoInstanceTests.checkIn(
            server.base, token: token, session: session, fields: fix("36.120560", "-115.161390"))
        #expect(refused.status == 503)
        #expect(!server.log.contains("36.12"), "a position reached the log")

        // Back: the pool reconnects by itself (after its own backoff, so the first answers may
        // still be 503); polled, not timed.
        try cluster.resume()
        var healthy = 0
        for _ in 0..<120 where healthy != 200 {
            healthy = try await server.call("GET", "/healthz").status
            if healthy != 200 { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(healthy == 200)
        let bellagio = try await TwoInstanceTests.checkIn(
            server.base, token: bo, session: session, fields: fix("36.112630", "-115.174000"))
        #expect(bellagio.status == 201)
        #expect(bellagio.answer?["verdict"]?.string == "accepted")

        // Gone again, with a check-in waiting for it when SIGTERM arrives: the service still drains
        // and exits 0 (it used to trap when the wait outlasted its cancellation bound).
        try cluster.pause()
        let (base, fields) = (server.base, fix("36.170720", "-115.144530"))
        let late = Task {
            try await TwoInstanceTests.checkIn(
                base, token: token, session: URLSession(configuration: .ephemeral), fields: fields)
        }
        try await Task.sleep(for: .milliseconds(300))
        server.stop()
        #expect(server.process.terminationReason == .exit)
        #expect(server.process.terminationStatus == 0, "\(server.log.suffix(2000))")
        _ = try? await late.value

        try cluster.resume()
        // The two answered 201; the refused one and the one cut off by the outage left nothing.
        let database = String(workspace.db.split(separator: "/").last ?? "")
        let counted = try cluster.psql(database, "SELECT count(*) FROM checkins")
        #expect(counted.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(counted.stderr)")
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }
}
