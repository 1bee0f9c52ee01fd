import Foundation
import GRDB
import Testing
import VSHCore
import VSHEngine
import VSHTestSupport

@testable import VSHSpatiaLite

/// Issue 18: an accepted check-in that comes after all of its player's others is scored alone
/// (the player's earlier score events stay as they are, rows and all), and the events are the
/// ones a full rescore writes; one that comes earlier than another, or while a badge of the hour
/// that needs several check-ins in its window is not yet earned, has all of the player's
/// check-ins scored again. A badge of three days in a
/// row is earned on the incremental path, from the local days of the earlier check-ins.
@Suite struct IncrementalScoringTests {
    /// The score events, player by player in the order they were written, as a rescore compares them.
    static func events(_ store: SpatiaLiteStore) async throws -> [String] {
        try await store.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT kind, hunt_id, stop_id, badge_id, points, at_epoch, checkin_id FROM score_events
                    ORDER BY player_id, id
                    """
            ).map { row in (0..<7).map { "\(row[$0] as DatabaseValue)" }.joined(separator: " ") }
        }
    }

    /// Rows the `events` (`AFTER DELETE ON main.score_events`, …) touched on the writer connection
    /// since the last call with this `counter`, counted by temporary triggers.
    static func counted(_ store: SpatiaLiteStore, _ counter: String, _ events: [String]) async throws -> Int {
        try await store.write { db in
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS \(counter)(n)")
            for (i, event) in events.enumerated() {
                try db.execute(
                    sql: """
                        CREATE TEMP TRIGGER IF NOT EXISTS \(counter)_\(i) \(event)
                        BEGIN INSERT INTO \(counter) VALUES (1); END
                        """)
            }
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(counter)") ?? 0
            try db.execute(sql: "DELETE FROM \(counter)")
            return count
        }
    }

    /// Score event rows deleted on the writer connection since the last call (a rescore deletes
    /// the player's events and writes them again; scoring alone deletes none).
    static func deletions(_ store: SpatiaLiteStore) async throws -> Int {
        try await counted(store, "deleted_events", ["AFTER DELETE ON main.score_events"])
    }

    @Test func aCheckInAfterAllOthersIsScoredAloneAsAFullRescoreWould() async throws {
        let league = try await League()
        defer { league.remove() }
        try await league.add("Eve")
        // (stop, time, scored alone?): Las Vegas is UTC-8.
        let visits: [(String, String, Bool?)] = [
            ("fremont-street-experience", "2026-11-20T07:00:00Z", nil),  // 23:00 on the 19th: night owl
            ("mob-museum", "2026-11-20T14:00:00Z", true),  // 06:00: the early bird (one check-in) alone
            ("neon-museum", "2026-11-20T18:00:00Z", true),
            ("mormon-fort", "2026-11-21T18:00:00Z", true),  // the third day in a row: the badge
            ("container-park", "2026-11-21T12:00:00Z", false),  // earlier than the one before: all again
            ("smith-center", "2026-11-22T18:00:00Z", true),
            ("arts-district", "2026-11-22T19:00:00Z", true),  // the hunt's last stop: bonus and badges
            ("arts-district", "2026-11-22T19:30:00Z", true),  // again: nothing
            ("welcome-sign", "2026-11-22T23:00:00Z", true),
        ]
        var alone = 0
        _ = try await Self.deletions(league.store)
        for (stop, time, expectAlone) in visits {
            let recorded = try await league.visit("Eve", stop, at: time)
            #expect(recorded.decision.verdict == .accepted, "\(stop) at \(time): \(recorded.decision.rules)")
            let scoredAlone = try await Self.deletions(league.store) == 0
            if let expectAlone {
                #expect(scoredAlone == expectAlone, "\(stop) at \(time)")
                if scoredAlone { alone += 1 }
            }
            // What a full rescore of everyone writes, event for event.
            let after = try await Self.events(league.store)
            try await league.store.rescoreEveryone()
            #expect(after == (try await Self.events(league.store)), "\(stop) at \(time)")
            _ = try await Self.deletions(league.store)
        }
        #expect(alone == 7)
        #expect(try await league.badges("Eve").contains("what-happens-in-vegas"))
        #expect(try await league.badges("Eve").contains("glitter-gulch"))
    }

    /// Rows written to the running totals on the writer connection since the last call.
    static func totalsWritten(_ store: SpatiaLiteStore) async throws -> Int {
        try await counted(
            store, "totals_written",
            ["AFTER INSERT ON main.hunt_scores", "AFTER INSERT ON main.player_scores"])
    }

    /// The running totals as the boards read them.
    static func totals(_ store: SpatiaLiteStore) async throws -> [String] {
        try await store.read { db in
            try ["player_scores", "hunt_scores"].flatMap { table in
                try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1, 2").map { row in
                    table + " " + row.databaseValues.map { "\($0)" }.joined(separator: " ")
                }
            }
        }
    }

    /// A stop visited again earns no event, and its check-in writes no totals: they are the
    /// stored events' sums already, as a full rescore finds; a first visit writes them.
    @Test func aVisitThatEarnsNothingWritesNoTotals() async throws {
        let league = try await League()
        defer { league.remove() }
        try await league.add("Eve")
        _ = try await Self.totalsWritten(league.store)
        for (stop, time, earns) in [
            ("mob-museum", "2026-11-20T18:00:00Z", true), ("mob-museum", "2026-11-20T19:00:00Z", false),
            ("neon-museum", "2026-11-20T20:00:00Z", true), ("mob-museum", "2026-11-20T21:00:00Z", false),
        ] {
            let recorded = try await league.visit("Eve", stop, at: time)
            #expect(recorded.decision.verdict == .accepted, "\(stop) at \(time): \(recorded.decision.rules)")
            let written = try await Self.totalsWritten(league.store)
            #expect((written > 0) == earns, "\(stop) at \(time): \(written) rows")
            let kept = try await Self.totals(league.store)
            #expect(kept.count == 2)
            try await league.store.rescoreEveryone()
            #expect(kept == (try await Self.totals(league.store)), "\(stop) at \(time)")
            _ = try await Self.totalsWritten(league.store)
        }
    }

    /// A server's group with several check-ins of one player: scored alone, one after the other
    /// in time order, when they all come after the player's others (one of them out of order in
    /// the group, one earning the three-days badge between the other two), as a full rescore
    /// would; with one earlier than the player's latest, all of theirs again.
    @Test func aGroupWithSeveralCheckInsOfAPlayerIsScoredAloneAsAFullRescoreWould() async throws {
        let league = try await League()
        defer { league.remove() }
        try await league.add("Eve", "Finn")
        let (eve, finn) = (try await league.id("Eve"), try await league.id("Finn"))
        try await league.visit("Eve", "fremont-street-experience", at: "2026-11-20T18:00:00Z")
        try await league.visit("Finn", "mob-museum", at: "2026-11-20T18:00:00Z")
        func request(_ player: PlayerID, _ stop: String, _ time: String) -> CheckInRequest {
            let when = RFC3339.parse(time)!
            return CheckInRequest(
                submission: Submission(
                    player: player,
                    evidence: .device(position: League.landmarks[stop]!, time: when, accuracyMeters: 5),
                    huntID: nil, receivedAt: when.addingTimeInterval(60)),
                photoFile: nil)
        }
        let verifier = Verifier()
        func record(_ requests: [CheckInRequest]) async throws {
            let outcomes = try await league.store.recordGroup(requests) { verifier.evaluate($0, facts: $1) }
            for outcome in outcomes {
                guard case .recorded(let recorded, _) = outcome else {
                    Issue.record("not recorded: \(outcome)")
                    continue
                }
                #expect(recorded.decision.verdict == .accepted, "\(recorded.decision.rules)")
            }
        }
        _ = try await Self.deletions(league.store)
        try await record([
            request(eve, "mormon-fort", "2026-11-22T18:00:00Z"),
            request(eve, "neon-museum", "2026-11-21T18:00:00Z"),
            request(finn, "neon-museum", "2026-11-21T18:05:00Z"),
            request(eve, "container-park", "2026-11-22T18:30:00Z"),
        ])
        #expect(try await Self.deletions(league.store) == 0)
        let alone = try await Self.events(league.store)
        #expect(try await league.badges("Eve").contains("what-happens-in-vegas"))
        try await league.store.rescoreEveryone()
        #expect(alone == (try await Self.events(league.store)))
        _ = try await Self.deletions(league.store)
        try await record([
            request(eve, "smith-center", "2026-11-23T18:00:00Z"),
            request(eve, "arts-district", "2026-11-22T17:00:00Z"),
        ])
        #expect(try await Self.deletions(league.store) > 0)
        let again = try await Self.events(league.store)
        try await league.store.rescoreEveryone()
        #expect(again == (try await Self.events(league.store)))
    }

    /// The rules' hunts are kept decoded across transactions only while the definitions stay the
    /// same: a sync by another process (another store on the file) changes a stop's points, and
    /// the next check-in through the first store is decided with the new ones.
    @Test func keptHuntsFollowASyncByAnotherProcess() async throws {
        let league = try await League()
        defer { league.remove() }
        try await league.add("Eve")
        let first = try await league.visit("Eve", "fremont-street-experience", at: "2026-11-20T18:00:00Z")
        #expect(first.decision.points == 80)
        let hunts = league.folder.appendingPathComponent("hunts")
        let file = hunts.appendingPathComponent("downtown-fremont.geojson")
        let text = try String(contentsOf: file, encoding: .utf8)
        let neon = try #require(text.range(of: "\"id\": \"neon-museum\""))
        let points = try #require(text.range(of: "\"points\": 60", range: neon.upperBound..<text.endIndex))
        try text.replacingCharacters(in: points, with: "\"points\": 65").write(
            to: file, atomically: true, encoding: .utf8)
        let other = try SpatiaLiteStore(path: league.folder.appendingPathComponent("vsh.sqlite").path)
        try await other.sync(directory: hunts.path)
        let second = try await league.visit("Eve", "neon-museum", at: "2026-11-20T18:30:00Z")
        #expect(second.decision.verdict == .accepted)
        #expect(second.decision.points == 65)
        // A vsh from before tokens syncs new files: the files' fingerprint changes, the token not.
        let older = try TestSupport.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE stops SET points = 70 WHERE id = 'mob-museum'\"); c.execute(\"UPDATE sync_state SET value = 'older' WHERE key = 'hunts'\"); c.commit()",
                league.folder.appendingPathComponent("vsh.sqlite").path,
            ])
        #expect(older.status == 0, "\(older.stderr)")
        let third = try await league.visit("Eve", "mob-museum", at: "2026-11-20T19:00:00Z")
        #expect(third.decision.points == 70)
    }
}
