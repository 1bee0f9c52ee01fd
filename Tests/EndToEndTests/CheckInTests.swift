import Foundation
import Testing
import VSHCore
import VSHTestSupport

let fixtureNow = "2026-11-21T20:00:00Z"

/// One fixture photo's expected fate (Fixtures/README.md).
struct PhotoCase: CustomTestStringConvertible, Sendable {
    let photo: String
    let status: Int32
    let verdict: String
    /// The rule that decides and what it says.
    let rule: String
    let result: String
    var stop: String? = nil
    var points = 0
    /// Photos submitted first, by another player.
    var before: [String] = []
    /// Submitted first by the same player.
    var sameplayerBefore: [String] = []

    var testDescription: String { photo }

    static let all: [PhotoCase] = [
        PhotoCase(
            photo: "sign-inside.jpg", status: 0, verdict: "accepted", rule: "at_stop", result: "passed",
            stop: "welcome-sign", points: 50),
        PhotoCase(
            photo: "sign-vertex.jpg", status: 0, verdict: "accepted", rule: "at_stop", result: "passed",
            stop: "welcome-sign", points: 50),
        PhotoCase(
            photo: "sign-near.jpg", status: 0, verdict: "accepted", rule: "at_stop", result: "passed",
            stop: "welcome-sign", points: 50),
        PhotoCase(
            photo: "sign-outside.jpg", status: 1, verdict: "rejected", rule: "at_stop", result: "failed"),
        PhotoCase(photo: "far-away.jpg", status: 1, verdict: "rejected", rule: "at_stop", result: "failed"),
        PhotoCase(photo: "no-gps.jpg", status: 1, verdict: "rejected", rule: "position", result: "failed"),
        PhotoCase(
            photo: "null-island.jpg", status: 1, verdict: "rejected", rule: "position", result: "failed"),
        PhotoCase(
            photo: "gps-no-time.jpg", status: 1, verdict: "rejected", rule: "capture_time", result: "failed",
            stop: "sphere"),
        PhotoCase(
            photo: "future.jpg", status: 1, verdict: "rejected", rule: "not_in_future", result: "failed",
            stop: "sphere"),
        PhotoCase(
            photo: "too-old.jpg", status: 1, verdict: "rejected", rule: "photo_age", result: "failed",
            stop: "high-roller"),
        PhotoCase(
            photo: "poor-accuracy.jpg", status: 2, verdict: "pending", rule: "accuracy",
            result: "needs_review", stop: "bellagio-fountains"),
        PhotoCase(
            photo: "clock-mismatch.jpg", status: 2, verdict: "pending", rule: "clocks_agree",
            result: "needs_review", stop: "paris-eiffel-arc"),
        PhotoCase(
            photo: "sign-retagged.jpg", status: 1, verdict: "rejected", rule: "unique_photo",
            result: "failed", stop: "welcome-sign", before: ["sign-inside.jpg"]),
        PhotoCase(
            photo: "teleport-fremont.jpg", status: 1, verdict: "rejected", rule: "travel_speed",
            result: "failed", stop: "fremont-street-experience", sameplayerBefore: ["teleport-sign.jpg"]),
        PhotoCase(
            photo: "sphere-camera-clock.jpg", status: 0, verdict: "accepted", rule: "capture_time",
            result: "passed", stop: "sphere", points: 70),
    ]
}

extension Workspace {
    func checkin(_ player: String, _ photo: String, extra: [String] = []) throws -> TestSupport.ProcessResult
    {
        try vsh(
            ["checkin", "--player", player, "--photo", fixturePath(photo), "--now", fixtureNow, "--json"]
                + extra)
    }

    func fixturePath(_ photo: String) -> String {
        TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/\(photo)").path
    }

    func addPlayers(_ names: String...) throws {
        for name in names { #expect(try vsh(["player", "add", name]).status == 0) }
    }

    /// `vsh players --json` as name → (points, checkins).
    func totals() throws -> [String: (points: Int, checkins: Int)] {
        var result: [String: (Int, Int)] = [:]
        for player in try json(try vsh(["players", "--json"]).stdout).array {
            guard let name = player["name"]?.string, case .number(let points, _)? = player["points"],
                case .number(let checkins, _)? = player["checkins"]
            else { continue }
            result[name] = (Int(points), Int(checkins))
        }
        return result
    }
}

@Suite struct CheckInTests {
    @Test(arguments: PhotoCase.all)
    func eachFixturePhotoGetsItsDocumentedVerdict(_ c: PhotoCase) throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann", "Zed")
        for earlier in c.before { _ = try workspace.checkin("Zed", earlier) }
        for earlier in c.sameplayerBefore { #expect(try workspace.checkin("Ann", earlier).status == 0) }
        let result = try workspace.checkin("Ann", c.photo)
        #expect(result.status == c.status, "\(result.stdout)\(result.stderr)")
        let answer = try json(result.stdout)
        #expect(answer["verdict"]?.string == c.verdict)
        #expect(answer["stop"]?.string == c.stop)
        #expect(answer["points"] == .int(c.points))
        let rule = answer["rules"]?.array.first { $0["rule"]?.string == c.rule }
        #expect(rule?["result"]?.string == c.result, "\(result.stdout)")
        #expect(answer["rules"]?.array.count == 14)
        // Points as the leaderboard will see them: only accepted check-ins count,
        // and the first accepted one earns the "first-roll" badge (10).
        let anyAccepted = c.verdict == "accepted" || !c.sameplayerBefore.isEmpty
        let expected = c.points + (c.sameplayerBefore.isEmpty ? 0 : 50) + (anyAccepted ? 10 : 0)
        #expect(try workspace.totals()["Ann"]?.points == expected)
    }

    /// `vsh doctor` checks that each archived photo is still the photo (its SHA-256), not only
    /// that a file is there; the same photo arriving again rewrites a damaged file.
    @Test func doctorFindsADamagedArchivedPhotoAndTheSamePhotoRepairsIt() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann", "Bo")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        let archive = workspace.db + ".photos"
        let folder = try #require(try FileManager.default.contentsOfDirectory(atPath: archive).first)
        let file =
            archive + "/" + folder + "/"
            + (try FileManager.default.contentsOfDirectory(atPath: archive + "/" + folder)[0])
        let original = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(try workspace.vsh(["doctor"]).status == 0)
        for damage in [
            Data(), original.prefix(original.count / 2), Data(repeating: 0x41, count: original.count),
        ] {
            try damage.write(to: URL(fileURLWithPath: file))
            let doctor = try workspace.vsh(["doctor"])
            #expect(doctor.status == 65)
            #expect(
                doctor.stdout.contains("check-ins whose archived photo is damaged (not the photo it was): 1"))
            #expect(try json(try workspace.vsh(["doctor", "--json"]).stdout)["damaged_photos"] == .int(1))
        }
        // Bo sends the same photo (a duplicate, so rejected): the archive has the photo again.
        #expect(try workspace.checkin("Bo", "sign-inside.jpg").status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    @Test func theJSONShapeIsTheDocumentedOne() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        let answer = try json(try workspace.checkin("Ann", "sign-inside.jpg").stdout)
        guard case .object(let object) = answer else {
            Issue.record("not an object")
            return
        }
        #expect(
            object.keys == [
                "verdict", "id", "player", "player_id", "hunt", "stop", "stop_name", "points", "rules", "fix",
                "awards",
            ])
        #expect(object["player_id"] == .int(1))
        #expect(
            object["awards"]
                == .array([
                    .object([
                        "kind": .string("badge"), "hunt": .string("strip-classics"),
                        "badge": .string("first-roll"), "points": .int(10),
                    ])
                ]))
        guard case .object(let fix)? = object["fix"] else {
            Issue.record("no fix")
            return
        }
        #expect(fix.keys == ["lat", "lon", "accuracy_m", "time", "source"])
        #expect(fix["time"] == .string("2026-11-21T19:30:00Z"))
        #expect(fix["source"] == .string("photo"))
        #expect(
            answer["rules"]?.array.map { $0["rule"]?.string ?? "" } == [
                "position", "capture_time", "accuracy", "not_in_future", "photo_age", "hunt_window",
                "clocks_agree",
                "at_stop", "code", "unique_photo", "travel_speed", "stop_order", "first_visit", "answer",
            ])
        // The photo is kept, content-addressed, beside the database.
        let archive = URL(fileURLWithPath: workspace.db + ".photos")
        let stored = try FileManager.default.subpathsOfDirectory(atPath: archive.path).filter {
            $0.hasSuffix(".jpg")
        }
        #expect(stored.count == 1)
        #expect(
            try Data(contentsOf: archive.appendingPathComponent(stored[0]))
                == Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg"))))
    }

    @Test func aSecondVisitIsRecordedButEarnsNothing() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        let later = try workspace.vsh([
            "checkin", "--player", "Ann", "--fix", "36.0815,-115.1727", "--time", "2026-11-21T19:59:30Z",
            "--accuracy", "5", "--now", fixtureNow, "--json",
        ])
        let again = try json(later.stdout)
        #expect(again["verdict"]?.string == "accepted")
        #expect(again["points"] == .int(0))
        #expect(try workspace.totals()["Ann"]?.points == 60)  // 50 and the first-roll badge
        #expect(try workspace.totals()["Ann"]?.checkins == 2)
    }

    @Test func badInputIsAOneLineErrorAndChangesNothing() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        let before = try workspace.totals()
        let archive = workspace.db + ".photos"
        let archived = try FileManager.default.subpathsOfDirectory(atPath: archive).count

        let cases: [(args: [String], status: Int32, message: String)] = [
            (
                ["--player", "Nobody", "--photo", workspace.fixturePath("teleport-sign.jpg")], 65,
                #"no player "Nobody""#
            ),
            (
                [
                    "--player", "Ann", "--photo", workspace.fixturePath("teleport-sign.jpg"), "--hunt",
                    "atlantis",
                ], 65, #"no hunt "atlantis""#
            ),
            (
                ["--player", "Ann", "--photo", workspace.fixturePath("truncated.jpg")], 65,
                "truncated.jpg: corrupt JPEG"
            ),
            (
                ["--player", "Ann", "--photo", workspace.fixturePath("not-a-jpeg.jpg")], 65,
                "not-a-jpeg.jpg: not a JPEG file"
            ),
            (
                ["--player", "Ann", "--photo", workspace.root.appendingPathComponent("missing.jpg").path], 66,
                "missing.jpg: cannot open the photo"
            ),
            (["--player", "Ann", "--fix", "36.08,-115.17"], 64, "--fix needs --time"),
            (
                ["--player", "Ann", "--fix", "95,-115.17", "--time", "2026-11-21T19:30:00Z"], 64,
                "--fix takes LAT,LON"
            ),
            (
                [
                    "--player", "Ann", "--photo", workspace.fixturePath("sign-inside.jpg"), "--now",
                    "yesterday",
                ], 64, "--now \"yesterday\" is not an RFC 3339 time"
            ),
        ]
        for c in cases {
            let result = try workspace.vsh(["checkin"] + c.args)
            #expect(result.status == c.status, "\(c.args): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 || c.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains(c.message), "\(result.stderr)")
            #expect(!result.stderr.contains("36.08"), "an error echoed a position: \(result.stderr)")
        }
        let after = try workspace.totals()
        #expect(after["Ann"]?.checkins == before["Ann"]?.checkins)
        #expect(after["Ann"]?.points == before["Ann"]?.points)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: archive).count == archived)
    }

    @Test func pendingCheckInsAreModerated() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann", "Bea")
        #expect(try workspace.checkin("Ann", "poor-accuracy.jpg").status == 2)
        #expect(try workspace.checkin("Bea", "clock-mismatch.jpg").status == 2)
        #expect(try workspace.totals()["Ann"]?.points == 0)

        let pending = try json(try workspace.vsh(["review", "list", "--json"]).stdout).array
        #expect(pending.count == 2)
        #expect(pending[0]["player"]?.string == "Ann")
        #expect(pending[0]["reasons"]?.array.first?.string?.hasPrefix("accuracy: ±120 m") == true)
        guard case .number(let first, _)? = pending[0]["id"], case .number(let second, _)? = pending[1]["id"]
        else {
            Issue.record("no ids")
            return
        }

        let approved = try workspace.vsh([
            "review", "approve", "\(Int(first))", "--moderator", "Mo", "--reason",
            "photo shows the fountains",
        ])
        #expect(approved.status == 0)
        // The stop's 60 and first-roll's 10: what Ann's total changed by, and the total.
        #expect(approved.stdout == "check-in #\(Int(first)) by Ann: accepted, +70 points (now 70)\n")
        #expect(try workspace.totals()["Ann"]?.points == 70)

        let noReason = try workspace.vsh(["review", "reject", "\(Int(second))"])
        #expect(noReason.status == 64)
        let rejected = try workspace.vsh([
            "review", "reject", "\(Int(second))", "--reason", "camera clock two hours off",
        ])
        #expect(rejected.stdout == "check-in #\(Int(second)) by Bea: rejected\n")
        #expect(try workspace.totals()["Bea"]?.points == 0)

        // Approving it now would overturn the rejection: that takes a reason of one's own.
        let twice = try workspace.vsh(["review", "approve", "\(Int(second))"])
        #expect(twice.status == 64)
        #expect(
            twice.stderr
                == "vsh: check-in #\(Int(second)) was rejected: overturning it needs a reason (kept in the audit trail)\n"
        )
        let revoke = try workspace.vsh(["review", "revoke", "\(Int(second))", "--reason", "no"])
        #expect(revoke.status == 65)
        #expect(revoke.stderr == "vsh: check-in #\(Int(second)) is rejected, not accepted\n")
        #expect(try workspace.vsh(["review", "approve", "999"]).stderr == "vsh: no check-in #999\n")
        #expect(try json(try workspace.vsh(["review", "list", "--json"]).stdout).array.isEmpty)
    }

    @Test func playersAreValidated() throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["player", "add", "Ann Lee"]).status == 0)
        #expect(
            try workspace.vsh(["player", "add", "ann lee"]).stderr
                == "vsh: a player called \"ann lee\" already exists\n")
        #expect(try workspace.vsh(["player", "add", "Zoë O'Brien-Núñez"]).status == 0)
        for bad in [
            "", "   ", "Robert'); DROP TABLE players;--", "a\u{202E}nimda", "tab\there",
            String(repeating: "x", count: 41), "two  spaces", "../../etc",
        ] {
            let result = try workspace.vsh(["player", "add", bad])
            #expect(result.status == 65, "\(bad) was accepted")
        }
        #expect(
            try json(try workspace.vsh(["players", "--json"]).stdout).array.map { $0["name"]?.string } == [
                "Ann Lee", "Zoë O'Brien-Núñez",
            ])
    }

    /// `vsh players` lists names as people sort them: numbers by value, case aside.
    @Test func playersAreListedInNaturalOrder() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Visitor 10", "visitor 2", "Visitor 1", "Ann")
        let names = try json(try workspace.vsh(["players", "--json"]).stdout).array.map { $0["name"]?.string }
        #expect(names == ["Ann", "Visitor 1", "visitor 2", "Visitor 10"], "\(names)")
        let table = try workspace.vsh(["players"]).stdout
        let order = ["Visitor 1 ", "visitor 2 ", "Visitor 10 "].map { table.range(of: $0)?.lowerBound }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { $0! < $1! }, "\(table)")
    }

    @Test func deviceFixCheckIns() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        let result = try workspace.vsh([
            "checkin", "--player", "Ann", "--fix", "36.12056,-115.16139", "--time", "2026-11-21T19:59:00Z",
            "--accuracy", "8",
            "--now", fixtureNow, "--json",
        ])
        #expect(result.status == 0)
        let answer = try json(result.stdout)
        #expect(answer["stop"]?.string == "sphere")
        #expect(answer["fix"]?["source"]?.string == "device")
        #expect(
            answer["rules"]?.array.first { $0["rule"]?.string == "unique_photo" }?["result"]?.string
                == "skipped")
        // --hunt restricts the stops: the Sphere is not in the Downtown hunt.
        let other = try workspace.vsh([
            "checkin", "--player", "Ann", "--fix", "36.12056,-115.16139", "--time", "2026-11-21T19:35:00Z",
            "--hunt", "downtown-fremont", "--now", fixtureNow, "--json",
        ])
        #expect(other.status == 1)
        #expect(try json(other.stdout)["hunt"]?.string == "downtown-fremont")
    }

    /// A thief's copy sent first and rejected does not take the picture from the player who took it:
    /// the owner's genuine check-in goes to a moderator (unique_photo needs review, naming the
    /// rejected copy) instead of being rejected as "first submitted by another player".
    @Test(arguments: [false, true]) func aThiefsRejectedCopyDoesNotTakeTheOwnersPhoto(_ postGIS: Bool) throws
    {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.addPlayers("Thief", "Owner")
        // The owner's picture without its metadata (what a browser uploads), sent from the desert.
        let copy = workspace.root.appendingPathComponent("copy.jpg").path
        let stripped = try TestSupport.run(
            "/usr/bin/jpegtran",
            ["-copy", "none", "-outfile", copy, workspace.fixturePath("sign-inside.jpg")])
        #expect(stripped.status == 0, "\(stripped.stderr)")
        let stolen = try workspace.vsh([
            "checkin", "--player", "Thief", "--photo", copy, "--fix", "36.2,-115.6", "--time",
            "2026-11-21T19:31:00Z", "--accuracy", "5", "--now", fixtureNow, "--json",
        ])
        #expect(try json(stolen.stdout)["verdict"]?.string == "rejected", "\(stolen.stdout)\(stolen.stderr)")
        let thiefID = try #require(try json(stolen.stdout)["id"]?.int)

        let genuine = try workspace.vsh([
            "checkin", "--player", "Owner", "--photo", workspace.fixturePath("sign-inside.jpg"), "--now",
            fixtureNow, "--json",
        ])
        let answer = try json(genuine.stdout)
        #expect(answer["verdict"]?.string == "pending", "\(genuine.stdout)\(genuine.stderr)")
        let unique = answer["rules"]?.array.first { $0["rule"]?.string == "unique_photo" }
        #expect(unique?["result"]?.string == "needs_review", "\(String(describing: unique))")
        #expect(unique?["detail"]?.string?.contains("check-in #\(thiefID) was rejected") == true)
    }

    /// Several processes submit the same photo at the same moment: one is accepted.
    @Test func simultaneousSubmissionsOfOnePhotoAcceptAtMostOne() throws {
        let workspace = try Workspace()
        let players = ["P1", "P2", "P3", "P4", "P5", "P6"]
        for player in players { try workspace.addPlayers(player) }
        let processes = players.map { player -> (Process, Pipe) in
            let process = Process()
            process.executableURL = TestSupport.productsDirectory.appendingPathComponent("vsh")
            process.arguments = [
                "checkin", "--player", player, "--photo", workspace.fixturePath("sign-inside.jpg"), "--now",
                fixtureNow,
                "--db", workspace.db, "--hunts", workspace.hunts, "--json",
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = Pipe()
            return (process, pipe)
        }
        for (process, _) in processes { try process.run() }
        var statuses: [Int32] = []
        var verdicts: [String] = []
        for (process, pipe) in processes {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            statuses.append(process.terminationStatus)
            verdicts.append((try? json(output))?["verdict"]?.string ?? "none")
        }
        #expect(statuses.filter { $0 == 0 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 1 }.count == players.count - 1, "\(statuses)")
        #expect(verdicts.filter { $0 == "accepted" }.count == 1)
        let totals = try workspace.totals()
        #expect(players.map { totals[$0]?.checkins ?? 0 }.reduce(0, +) == players.count)
        #expect(players.map { totals[$0]?.points ?? 0 }.reduce(0, +) == 60)  // one stop, one first-roll badge
    }
}

@Suite struct BatchCheckInTests {
    /// A batch gives every photo the verdict and rule results it gets one by one, in the same order.
    @Test func aBatchDecidesLikeOneByOne() throws {
        let photos = try FileManager.default.contentsOfDirectory(
            atPath: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos").path
        )
        .filter { $0.hasSuffix(".jpg") && $0 != "not-a-jpeg.jpg" && $0 != "truncated.jpg" }.sorted()
        let single = try Workspace()
        try single.addPlayers("Ann")
        var expected: [String] = []
        for photo in photos {
            let answer = try json(try single.checkin("Ann", photo).stdout)
            expected.append(
                "\(answer["verdict"]?.string ?? "") \(answer["stop"]?.string ?? "-") \(answer["points"]!.compactText) \(answer["rules"]!.compactText)"
            )
        }
        let batch = try Workspace()
        try batch.addPlayers("Ann")
        let result = try batch.vsh(
            ["checkin", "--player", "Ann", "--photo"] + photos.map(batch.fixturePath) + [
                "--now", fixtureNow, "--json",
            ])
        #expect(result.status == 2 || result.status == 1)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == photos.count)
        for (line, (photo, want)) in zip(lines, zip(photos, expected)) {
            let answer = try json(String(line))
            #expect(answer["file"]?.string == batch.fixturePath(photo))
            let got =
                "\(answer["verdict"]?.string ?? "") \(answer["stop"]?.string ?? "-") \(answer["points"]!.compactText) \(answer["rules"]!.compactText)"
            #expect(got == want, "\(photo)")
        }
        #expect(try batch.totals()["Ann"]?.points == single.totals()["Ann"]?.points)
    }

    @Test func unreadablePhotosInABatchAreReportedAndRecordNothing() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        let files = ["sign-inside.jpg", "truncated.jpg", "not-a-jpeg.jpg", "sphere-camera-clock.jpg"].map(
            workspace.fixturePath)
        let result = try workspace.vsh(
            ["checkin", "--player", "Ann", "--photo"] + files + ["--now", fixtureNow])
        #expect(result.status == 65)
        #expect(
            result.stderr.contains("truncated.jpg: corrupt JPEG")
                && result.stderr.contains("not-a-jpeg.jpg: not a JPEG file"))
        #expect(result.stdout.hasSuffix("4 photos: 2 accepted, 2 unreadable\n"))
        #expect(try workspace.totals()["Ann"]?.checkins == 2)
    }
}
