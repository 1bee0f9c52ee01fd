import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Issue 14: a check-in waiting for a moderator is part of the player's journey for the rules.
@Suite struct PendingRulesTests {
    static func device(
        _ workspace: Workspace, _ player: String, _ fix: String, accuracy: String, at time: String,
        now: String
    ) throws -> (status: Int32, answer: JSONValue?) {
        let result = try workspace.vsh([
            "checkin", "--player", player, "--fix", fix, "--accuracy", accuracy, "--time", time, "--now", now,
            "--json",
        ])
        return (result.status, try? json(result.stdout))
    }

    /// Sent to review at the Welcome sign (its accuracy), then at Fremont Street two minutes later:
    /// the second used to be accepted (only accepted check-ins were compared), and approving the
    /// first left the player holding both stops at 300 km/h. Now the second fails travel_speed.
    @Test(arguments: [false, true]) func aPendingCheckInCountsForTravelSpeed(onPostGIS: Bool) throws {
        let workspace =
            onPostGIS ? try Workspace(database: try PostgresCluster.shared().database()) : try Workspace()
        try workspace.addPlayers("Ann")
        let sign = try Self.device(
            workspace, "Ann", "36.082014,-115.172734", accuracy: "120", at: "2026-11-21T19:50:00Z",
            now: "2026-11-21T19:50:30Z")
        #expect(sign.status == 2)
        let fremont = try Self.device(
            workspace, "Ann", "36.1706,-115.1445", accuracy: "6", at: "2026-11-21T19:52:00Z",
            now: "2026-11-21T19:52:30Z")
        #expect(fremont.status == 1)
        let rule = fremont.answer?["rules"]?.array.first { $0["rule"]?.string == "travel_speed" }
        #expect(rule?["result"]?.string == "failed", "\(String(describing: fremont.answer))")
        #expect(rule?["detail"]?.string?.hasPrefix("that would mean travelling at ") == true)
        // A second pending visit to the sign is not a first visit either.
        let again = try Self.device(
            workspace, "Ann", "36.082014,-115.172734", accuracy: "120", at: "2026-11-21T19:55:00Z",
            now: "2026-11-21T19:55:30Z")
        let first = again.answer?["rules"]?.array.first { $0["rule"]?.string == "first_visit" }
        #expect(first?["detail"]?.string?.hasPrefix("already visited at 2026-11-21T19:50:00Z") == true)
    }
}
