import Foundation
import Testing
import VSHCore
import VSHTestSupport

/// Compares a replay's timeline with the organiser's expectation: the same
/// events (kind, hunt, stop, points, verdict), each within `tolerance` seconds
/// (GPS noise moves the first fix inside a stop by a sample or two).
enum Timeline {
    static let tolerance = 30.0

    struct Event: CustomStringConvertible {
        var time: Date
        var key: String
        var description: String { "\(RFC3339.format(time)) \(key)" }
    }

    static func parse(_ text: String) throws -> [Event] {
        try text.split(separator: "\n").map { line in
            let value = try json(String(line))
            guard case .object(let o) = value, case .string(let time)? = o["time"],
                let date = RFC3339.parse(time)
            else {
                throw FixtureError("not an event: \(line)")
            }
            func text(_ key: String) -> String {
                switch o[key] {
                case .string(let s)?: return s
                case .number(let n, _)?: return String(Int(n))
                default: return "-"
                }
            }
            var key = [text("event"), text("hunt"), text("stop"), text("points"), text("verdict")]
            if o["badge"] != nil { key.append(text("badge")) }
            return Event(time: date, key: key.joined(separator: " "))
        }
    }

    /// Every difference, empty when the timelines agree.
    static func mismatches(expected: [Event], actual: [Event]) -> [String] {
        var unmatched = actual
        var problems: [String] = []
        for event in expected {
            if let index = unmatched.firstIndex(where: {
                $0.key == event.key && abs($0.time.timeIntervalSince(event.time)) <= tolerance
            }) {
                unmatched.remove(at: index)
            } else {
                problems.append("missing: \(event)")
            }
        }
        problems += unmatched.map { "unexpected: \($0)" }
        return problems
    }
}

@Suite struct ReplayTests {
    static let walks: [String] = {
        let folder = TestSupport.packageRoot.appendingPathComponent("Fixtures/walks")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".gpx") }.map { String($0.dropLast(4)) }.sorted()
    }()

    static func walk(_ name: String) -> String {
        TestSupport.packageRoot.appendingPathComponent("Fixtures/walks/\(name).gpx").path
    }

    static func expected(_ name: String) throws -> [Timeline.Event] {
        try Timeline.parse(
            String(
                contentsOf: TestSupport.packageRoot.appendingPathComponent(
                    "Fixtures/walks/\(name).expected.jsonl"), encoding: .utf8))
    }

    @Test func thereAreWalks() {
        #expect(
            Self.walks == [
                "downtown-complete", "fremont-misses-mob", "high-roller-jitter", "sphere-pass-through",
                "strip-south", "teleport",
            ])
    }

    /// Every walk's dry run gives its expected timeline and writes nothing: on SpatiaLite (a private
    /// copy) and on PostGIS (one transaction, rolled back).
    @Test(arguments: walks, [false, true])
    func eachWalkReplaysToItsExpectedTimeline(_ name: String, onPostGIS: Bool) throws {
        let workspace = try Workspace.on(postGIS: onPostGIS)
        try workspace.addPlayers("Walker")
        let result = try workspace.vsh([
            "replay", Self.walk(name), "--player", "Walker", "--dry-run", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let problems = Timeline.mismatches(
            expected: try Self.expected(name), actual: try Timeline.parse(result.stdout))
        #expect(problems.isEmpty, "\(name):\n\(problems.joined(separator: "\n"))")
        // A dry run writes nothing.
        #expect(try workspace.totals()["Walker"]?.checkins == 0)
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    @Test func aWrongExpectationFails() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Walker")
        let actual = try Timeline.parse(
            try workspace.vsh([
                "replay", Self.walk("strip-south"), "--player", "Walker", "--dry-run", "--json",
            ]).stdout)
        var expected = try Self.expected("strip-south")
        #expect(Timeline.mismatches(expected: expected, actual: actual).isEmpty)
        // Another stop, a shifted time, a missing event: each is caught.
        var wrongStop = expected
        wrongStop[4].key = wrongStop[4].key.replacingOccurrences(of: "luxor-sphinx", with: "sphere")
        #expect(Timeline.mismatches(expected: wrongStop, actual: actual).count == 2)
        var late = expected
        late[1].time += 120
        #expect(!Timeline.mismatches(expected: late, actual: actual).isEmpty)
        expected.removeLast()
        #expect(Timeline.mismatches(expected: expected, actual: actual) == ["unexpected: \(actual.last!)"])
    }

    /// A replay that records receives its check-ins now (the server's clock, or --now), so the
    /// freshness rules judge an old walk as any late fix: it used to record with the walk's own
    /// clock, so walks dated 1999 or 2099 scored and back-dated points won ties.
    @Test func aRealReplayIsReceivedNowAndJudgedByFreshness() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Walker")
        func replay(now: String) throws -> [Timeline.Event] {
            let result = try workspace.vsh([
                "replay", Self.walk("downtown-complete"), "--player", "Walker", "--json", "--now", now,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            return try Timeline.parse(result.stdout)
        }
        // A minute after the walk ended (18:00 to 19:18:48): its last check-in is fresh, the
        // earlier ones are late fixes that wait for a moderator; no hunt is complete.
        let justAfter = try replay(now: "2026-11-21T19:19:30Z").filter { $0.key.hasPrefix("check-in") }
        #expect(justAfter.count >= 7)
        #expect(justAfter.dropLast().allSatisfy { $0.key.hasSuffix(" pending") }, "\(justAfter.map(\.key))")
        let review = try workspace.vsh(["review", "list"]).stdout
        #expect(review.contains("before it was received"), "\(review)")
        #expect(try workspace.totals()["Walker"]?.points ?? 0 <= 60)
        // Two days later: every point is older than the hunt's max_photo_age_s; before the walk:
        // every point is in the future. Nothing scores.
        for now in ["2026-11-23T19:19:30Z", "2026-11-21T17:00:00Z"] {
            let events = try replay(now: now).filter { $0.key.hasPrefix("check-in") }
            #expect(!events.isEmpty && events.allSatisfy { $0.key.hasSuffix(" rejected") }, "\(now)")
        }
        // --now is for a replay that records; a dry run keeps the walk's clock.
        #expect(
            try workspace.vsh([
                "replay", Self.walk("downtown-complete"), "--player", "Walker", "--dry-run", "--now",
                "2026-11-21T19:19:30Z",
            ]).status == 64)
    }

    @Test func theMapIsAnSVGWithTheStopsAndTheTrack() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Walker")
        let map = workspace.root.appendingPathComponent("walk.svg").path
        let result = try workspace.vsh([
            "replay", Self.walk("strip-south"), "--player", "Walker", "--dry-run", "--hunt", "strip-classics",
            "--map", map,
        ])
        #expect(result.status == 0)
        let svg = try String(contentsOfFile: map, encoding: .utf8)
        #expect(svg.hasPrefix("<?xml"))
        #expect(svg.contains("<polyline"))
        #expect(svg.contains("Welcome to Fabulous Las Vegas Sign"))
        #expect(svg.components(separatedBy: "<path d=").count - 1 == 11)  // ten stops and the north arrow
    }

    /// A dry run's private copy of the league goes when the run is stopped by SIGTERM, and one
    /// left by a process that crashed goes with the next dry run.
    @Test func aDryRunStoppedBySIGTERMLeavesNoCopyOfTheLeague() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Walker")
        let temporary = workspace.root.appendingPathComponent("tmp").path
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: false)
        // The leftover of a crashed dry run: named for a process that has ended.
        let gone = try Spawn.start(
            "/bin/true", [], environment: [:], directory: nil, stdin: 0, stdout: 1, stderr: 2)
        #expect(Spawn.wait(gone) == 0)
        let stale = temporary + "/vsh-dry-run-\(gone)-0"
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false)
        #expect(FileManager.default.createFile(atPath: stale + "/league.sqlite", contents: Data("x".utf8)))
        // A long walk up and down the Strip, a fix a second: the replay is under way for a while.
        var gpx = "<gpx version=\"1.1\" creator=\"test\"><trk><trkseg>\n"
        let start = RFC3339.parse("2026-11-21T18:00:00Z")!
        for i in 0..<400_000 {
            let t = Double(i % 2000) / 2000
            let lat = 36.08 + 0.04 * (i / 2000 % 2 == 0 ? t : 1 - t)
            gpx +=
                "<trkpt lat=\"\(lat)\" lon=\"-115.172\"><time>\(RFC3339.format(start.addingTimeInterval(Double(i))))</time></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let walk = workspace.root.appendingPathComponent("long.gpx").path
        #expect(FileManager.default.createFile(atPath: walk, contents: Data(gpx.utf8)))
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary
        let null = open("/dev/null", O_RDWR)
        defer { close(null) }
        let pid = try Spawn.start(
            TestSupport.productsDirectory.appendingPathComponent("vsh").path,
            [
                "replay", walk, "--player", "Walker", "--dry-run", "--db", workspace.db, "--hunts",
                workspace.hunts,
            ],
            environment: environment, directory: workspace.root.path, stdin: null, stdout: null, stderr: null)
        // Wait for its copy, then stop it.
        var copy: String?
        var status: Int32 = 0
        while copy == nil {
            copy = (try FileManager.default.contentsOfDirectory(atPath: temporary)).first {
                $0.hasPrefix("vsh-dry-run-\(pid)-")
            }
            if copy == nil, waitpid(pid, &status, WNOHANG) == pid {
                Issue.record("the replay ended before its copy was seen")
                return
            }
            usleep(1000)
        }
        #expect(!FileManager.default.fileExists(atPath: stale))  // swept on the way in
        kill(pid, SIGTERM)
        #expect(Spawn.wait(pid) == SIGTERM)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
        #expect(try workspace.totals()["Walker"]?.checkins == 0)
    }

    @Test func badWalksAreOneLineErrors() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Walker")
        let broken = workspace.root.appendingPathComponent("broken.gpx")
        try Data("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\">\n</trk></gpx>".utf8).write(
            to: broken)
        let malformed = try workspace.vsh(["replay", broken.path, "--player", "Walker"])
        #expect(malformed.status == 65)
        #expect(malformed.stderr.hasPrefix("vsh: \(broken.path):2: malformed XML"))
        let timeless = workspace.root.appendingPathComponent("timeless.gpx")
        try Data(
            "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"36.08\" lon=\"-115.17\"/></trkseg></trk></gpx>"
                .utf8
        ).write(to: timeless)
        let noTimes = try workspace.vsh(["replay", timeless.path, "--player", "Walker"])
        #expect(noTimes.status == 65)
        #expect(noTimes.stderr.contains("a replay needs times"))
        #expect(try workspace.vsh(["replay", Self.walk("teleport"), "--player", "Nobody"]).status == 65)
        #expect(
            try workspace.vsh([
                "replay", workspace.root.appendingPathComponent("none.gpx").path, "--player", "Walker",
            ]).status == 66)
        #expect(try workspace.totals()["Walker"]?.checkins == 0)
    }
}
