import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Read scaling: `vsh serve --db PRIMARY --read-db REPLICA`, the replica a second cluster on
/// loopback fed by `pg_basebackup` and streaming replication. Check-ins go to the primary; the
/// hunts, leaderboard and profiles come from the replica, a moment later.
@Suite struct ReplicaTests {
    @Test func publicReadsComeFromTheStreamingReplica() async throws {
        let primary = try PostgresCluster.shared()
        let url = try primary.database()
        let name = String(url.split(separator: "/").last!)
        let workspace = try Workspace(database: url)
        // The schema and the hunts on the primary first, so the replica has them to read.
        #expect(try workspace.vsh(["hunts"]).status == 0)
        let replica = try PostgresCluster(replicaOf: primary)
        defer { try? replica.stop() }
        let replicaURL = replica.url(name)
        #expect(try replica.psql(name, "SELECT pg_is_in_recovery()").stdout.hasPrefix("t"))
        // A replica is read-only: vsh refuses it as the league (it cannot record), and the
        // read database must hold a league.
        let readOnly = try TestSupport.run("vsh", ["player", "add", "Eve", "--db", replicaURL])
        #expect(readOnly.status != 0)
        #expect(!readOnly.stderr.contains("internal error"), "\(readOnly.stderr)")
        let noLeague = try TestSupport.run(
            "vsh", ["serve", "--port", "0", "--db", url, "--read-db", replica.url("postgres")])
        #expect(noLeague.status == 65, "\(noLeague.stderr)")
        #expect(noLeague.stderr.contains("holds no vsh league"), "\(noLeague.stderr)")

        let server = try ServedVSH(
            workspace: workspace, extra: ["--now", fixtureNow, "--read-db", replicaURL])
        defer { server.stop() }
        let token = try await server.register("Rita", email: "rita@example.org")
        let photo = try Data(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        let answer = try await TwoInstanceTests.checkIn(
            server.base, token: token, session: URLSession.shared, photo: photo)
        #expect(answer.status == 201)
        #expect(answer.answer?["verdict"] == .string("accepted"))
        let onPrimary = Self.withoutPictures(try workspace.vsh(["leaderboard", "--format", "json"]).stdout)
        #expect(onPrimary.contains("\"Rita\""))

        // The replica catches up; the served board then equals the primary's.
        var served = ""
        let recorded = ContinuousClock.now
        for _ in 0..<300 where served != onPrimary {
            try await Task.sleep(for: .milliseconds(100))
            served = Self.withoutPictures(try await server.call("GET", "/v1/leaderboard").body)
        }
        #expect(served == onPrimary)
        // Reported, not asserted: how long after the answer the replica served the new board
        // (replication plus up to a second of the read cache, polled every 0.1 s).
        print(
            "replica: the new board was served \(ContinuousClock.now - recorded) after the check-in's answer")

        // With replay paused, a new check-in is recorded (on the primary) but the served board
        // does not show it: the reads really come from the replica. Resumed, it does.
        _ = try replica.psql(name, "SELECT pg_wal_replay_pause()")
        let second = try await TwoInstanceTests.checkIn(
            server.base, token: token, session: URLSession.shared,
            fields: [
                ("lat", "36.112450"), ("lon", "-115.171350"), ("accuracy_m", "5"),
                ("fix_time", "2026-11-21T19:59:30Z"),
            ])
        #expect(second.status == 201)
        #expect(second.answer?["verdict"] == .string("accepted"), "\(String(describing: second.answer))")
        let updated = Self.withoutPictures(try workspace.vsh(["leaderboard", "--format", "json"]).stdout)
        #expect(updated != onPrimary)
        try await Task.sleep(for: .seconds(1.5))  // past the read cache's second
        #expect(Self.withoutPictures(try await server.call("GET", "/v1/leaderboard").body) == onPrimary)
        _ = try replica.psql(name, "SELECT pg_wal_replay_resume()")
        for _ in 0..<300 where served != updated {
            try await Task.sleep(for: .milliseconds(100))
            served = Self.withoutPictures(try await server.call("GET", "/v1/leaderboard").body)
        }
        #expect(served == updated)
        server.stop()
        #expect(server.process.terminationStatus == 0)
    }

    /// A board's rows without `avatar_url` (the served rows carry the pictures, the command's not),
    /// as compact JSON; the text itself when it is not a board.
    static func withoutPictures(_ text: String) -> String {
        guard case .array(let rows)? = try? JSONValue.parse(text) else {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return JSONValue.array(
            rows.map { row in
                guard case .object(var fields) = row else { return row }
                fields["avatar_url"] = nil
                return .object(fields)
            }
        ).compactText
    }
}
