import Foundation
import Testing
import VSHCore
import VSHTestSupport

extension Workspace {
    /// A device check-in at a shipped landmark.
    @discardableResult
    func visit(_ player: String, _ stop: String, at time: String) throws -> TestSupport.ProcessResult {
        let landmark = try Landmark.all().first { $0.stop == stop }!
        let now = RFC3339.format(RFC3339.parse(time)!.addingTimeInterval(60))
        return try vsh([
            "checkin", "--player", player, "--fix", "\(landmark.latitude),\(landmark.longitude)", "--time",
            time, "--accuracy", "5", "--now", now,
        ])
    }

    /// A league of four with a tie: Bo 80, Zoë O'Brien-Núñez 60 (first), Ann 60, Dee 50.
    func league() throws {
        try addPlayers("Ann", "Bo", "Zoë O'Brien-Núñez", "Dee")
        try visit("Bo", "sphere", at: "2026-11-21T18:00:00Z")
        try visit("Zoë O'Brien-Núñez", "welcome-sign", at: "2026-11-21T18:30:00Z")
        try visit("Ann", "welcome-sign", at: "2026-11-21T19:00:00Z")
        try visit("Dee", "luxor-sphinx", at: "2026-11-21T18:10:00Z")
    }
}

/// Runs python3 on a script with the given input and returns its output: the
/// "standard tools" the README promises the formats parse with.
func python(_ script: String, input: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script]
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return output
}

@Suite struct LeaderboardTests {
    @Test func jsonAndCSVParseWithStandardTools() throws {
        let workspace = try Workspace()
        try workspace.league()
        let json = try workspace.vsh(["leaderboard", "--format", "json"]).stdout
        let fromJSON = try python(
            "import json,sys\nfor e in json.load(sys.stdin): print(e['rank'], e['player'], e['points'], e['stops_visited'], e['badges'])",
            input: json)
        #expect(fromJSON == "1 Bo 80 1 1\n2 Zoë O'Brien-Núñez 60 1 1\n2 Ann 60 1 1\n4 Dee 50 1 1\n")
        let csv = try workspace.vsh(["leaderboard", "--format", "csv"]).stdout
        let fromCSV = try python(
            "import csv,sys\nfor r in csv.DictReader(sys.stdin): print(r['rank'], r['player'], r['points'], r['hunts_completed'])",
            input: csv)
        #expect(fromCSV == "1 Bo 80 0\n2 Zoë O'Brien-Núñez 60 0\n2 Ann 60 0\n4 Dee 50 0\n")
        #expect(csv.hasPrefix("rank,player,points,hunts_completed,stops_visited,badges\r\n"))
    }

    @Test func tableMarkdownAndHTML() throws {
        let workspace = try Workspace()
        try workspace.league()
        let table = try workspace.vsh(["leaderboard"], hunts: true)
        #expect(
            table.stdout.split(separator: "\n").map(String.init) == [
                "RANK  PLAYER             POINTS  HUNTS  STOPS  BADGES",
                "   1  Bo                     80      0      1       1",
                "   2  Zoë O'Brien-Núñez      60      0      1       1",
                "   2  Ann                    60      0      1       1",
                "   4  Dee                    50      0      1       1",
            ])
        #expect(!table.stdout.contains("\u{1B}["))  // not a terminal: no colour
        let markdown = try workspace.vsh(["leaderboard", "--format", "markdown", "--limit", "1"]).stdout
        #expect(
            markdown
                == "| rank | player | points | hunts completed | stops visited | badges |\n| ---: | --- | ---: | ---: | ---: | ---: |\n| 1 | Bo | 80 | 0 | 1 | 1 |\n"
        )
        let html = try workspace.vsh(["leaderboard", "--format", "html", "--hunt", "strip-classics"]).stdout
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<title>Strip Classics leaderboard</title>"))
        #expect(html.contains("Zoë O&#39;Brien-Núñez"))
        #expect(html.contains("<tr class=\"r gold\"><td class=\"rank\">1</td><td class=\"player\">Bo</td>"))
        #expect(html.hasSuffix("</html>\n"))
        // The event's name as vsh serve --title takes it, escaped; without a hunt or title, vsh's.
        let titled = try workspace.vsh(["leaderboard", "--format", "html", "--title", "Acme <Team> Day"])
            .stdout
        #expect(titled.contains("<title>Acme &lt;Team&gt; Day</title>"), "\(titled.prefix(400))")
        let plain = try workspace.vsh(["leaderboard", "--format", "html"]).stdout
        #expect(plain.contains("<title>vsh hunts leaderboard</title>") && !plain.contains("Las Vegas"))
        #expect(try workspace.vsh(["leaderboard", "--title", "Acme"]).status == 64)
        #expect(try workspace.vsh(["leaderboard", "--format", "html", "--title", "  "]).status == 64)
    }

    @Test func windowsAndUsageErrors() throws {
        let workspace = try Workspace()
        try workspace.league()
        let late = try json(
            try workspace.vsh(["leaderboard", "--format", "json", "--since", "2026-11-21T18:20:00Z"]).stdout)
        #expect(late.array.map { $0["player"]?.string } == ["Zoë O'Brien-Núñez", "Ann"])
        #expect(try workspace.vsh(["leaderboard", "--since", "yesterday"]).status == 64)
        #expect(try workspace.vsh(["leaderboard", "--format", "pdf"]).status == 64)
        #expect(try workspace.vsh(["leaderboard", "--limit", "0"]).status == 64)
        #expect(try workspace.vsh(["leaderboard", "--hunt", "atlantis"]).status == 65)
    }

    @Test func revokeChangesTheBoard() throws {
        let workspace = try Workspace()
        try workspace.league()
        // Bo's only check-in is #1.
        let revoked = try workspace.vsh(["review", "revoke", "1", "--reason", "screenshot, no EXIF time"])
        // A revocation says what the player lost.
        #expect(revoked.stdout == "check-in #1 by Bo: revoked, -80 points (now 0)\n")
        let board = try json(try workspace.vsh(["leaderboard", "--format", "json"]).stdout)
        #expect(
            board.array.map { "\($0["rank"]!.compactText) \($0["player"]?.string ?? "")" } == [
                "1 Zoë O'Brien-Núñez", "1 Ann", "3 Dee",
            ])
        #expect(
            try workspace.vsh(["review", "revoke", "1", "--reason", "again"]).stderr
                == "vsh: check-in #1 is revoked, not accepted\n")
        #expect(try workspace.vsh(["review", "revoke", "2"]).status == 64)  // a reason is required
    }

    /// The all-time board reads running totals; a window reads the events. Both must agree,
    /// through check-ins, a revocation and a rescore.
    @Test func runningTotalsAgreeWithTheEvents() throws {
        let workspace = try Workspace()
        try workspace.league()
        try workspace.visit("Ann", "sphere", at: "2026-11-21T19:20:00Z")
        try workspace.visit("Ann", "luxor-sphinx", at: "2026-11-21T19:40:00Z")
        func boards() throws -> (String, String) {
            (
                try workspace.vsh(["leaderboard", "--format", "csv"]).stdout,
                try workspace.vsh(["leaderboard", "--format", "csv", "--since", "1970-01-01T00:00:00Z"])
                    .stdout
            )
        }
        var (allTime, windowed) = try boards()
        #expect(allTime == windowed && allTime.contains("Ann"))
        #expect(try workspace.vsh(["review", "revoke", "1", "--reason", "test"]).status == 0)
        (allTime, windowed) = try boards()
        #expect(allTime == windowed && !allTime.contains("Bo,"))
        #expect(try workspace.vsh(["rescore"]).status == 0)
        #expect(try boards().0 == allTime)
        #expect(try workspace.vsh(["doctor"], hunts: false).status == 0)
    }

    /// A hunt's board reads each player's running totals in that hunt (`hunt_scores`); a window
    /// groups the events. Both must agree, through check-ins, a revocation and a rescore, and
    /// `vsh doctor` finds a hunt's total that is wrong, or left over without events.
    @Test func huntTotalsAgreeWithTheEvents() throws {
        let workspace = try Workspace()
        try workspace.league()
        try workspace.visit("Ann", "fremont-street-experience", at: "2026-11-21T19:20:00Z")
        try workspace.visit("Bo", "mob-museum", at: "2026-11-21T19:30:00Z")
        func boards(_ hunt: String) throws -> (String, String) {
            (
                try workspace.vsh(["leaderboard", "--format", "csv", "--hunt", hunt]).stdout,
                try workspace.vsh([
                    "leaderboard", "--format", "csv", "--hunt", hunt, "--since", "1970-01-01T00:00:00Z",
                ]).stdout
            )
        }
        for hunt in ["strip-classics", "downtown-fremont"] {
            let (totals, grouped) = try boards(hunt)
            #expect(totals == grouped && totals.contains("Bo"), "\(hunt): \(totals) against \(grouped)")
        }
        #expect(try boards("downtown-fremont").0.contains("Ann"))
        let rows = try workspace.query("SELECT count(*) FROM hunt_scores")
        #expect(rows == ["6"], "\(rows)")  // Ann, Bo: both hunts; Zoë, Dee: strip-classics
        // Bo's first check-in (the Sphere) is revoked: his strip-classics row goes, his downtown one stays.
        #expect(try workspace.vsh(["review", "revoke", "1", "--reason", "test"]).status == 0)
        for hunt in ["strip-classics", "downtown-fremont"] {
            let (totals, grouped) = try boards(hunt)
            #expect(totals == grouped, "\(hunt): \(totals) against \(grouped)")
        }
        let (strip, downtown) = (try boards("strip-classics").0, try boards("downtown-fremont").0)
        #expect(!strip.contains("Bo,") && downtown.contains("Bo,"), "\(strip) \(downtown)")
        #expect(try workspace.vsh(["doctor"], hunts: false).status == 0)
        // A wrong hunt total, then a row without events: each is found, and a rescore mends it.
        for (damage, players) in [
            ("UPDATE hunt_scores SET points = points + 1 WHERE hunt_id = 'downtown-fremont'", 2),
            (
                "INSERT INTO hunt_scores SELECT player_id, 'downtown-fremont', 5, 0, 1, 0, 0 FROM hunt_scores WHERE hunt_id = 'strip-classics' AND player_id NOT IN (SELECT player_id FROM hunt_scores WHERE hunt_id = 'downtown-fremont') LIMIT 1",
                1
            ),
        ] {
            let changed = try TestSupport.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sqlite3,sys\ncon = sqlite3.connect(sys.argv[1])\nprint(con.execute(sys.argv[2]).rowcount)\ncon.commit()",
                    workspace.db, damage,
                ])
            #expect(
                changed.status == 0 && changed.stdout != "0\n",
                "\(damage): \(changed.stdout) \(changed.stderr)")
            let doctor = try workspace.vsh(["doctor", "--json"], hunts: false)
            let report = try json(doctor.stdout)
            #expect(doctor.status != 0 && report["wrong_totals"] == .int(players), "\(doctor.stdout)")
            #expect(try workspace.vsh(["rescore"]).status == 0)
            #expect(try workspace.vsh(["doctor"], hunts: false).status == 0)
        }
    }

    @Test func profileShowsProgressBadgesAndRecentCheckIns() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        try workspace.visit("Ann", "welcome-sign", at: "2026-11-21T18:00:00Z")
        try workspace.visit("Ann", "luxor-sphinx", at: "2026-11-21T18:30:00Z")
        let text = try workspace.vsh(["profile", "Ann"]).stdout
        #expect(text.contains("Ann · 100 points · 2 stops · 0 hunts completed"))
        #expect(text.contains("  Strip Classics      ██░░░░░░  2/10\n"))
        #expect(text.contains("  Downtown & Fremont  ░░░░░░░░  0/7\n"))
        #expect(text.contains("First Roll of the Dice (+10)"))
        #expect(
            text.contains("#2  2026-11-21 10:31:00 PST  accepted  The Sphinx at Luxor (strip-classics)  +40"),
            "\(text)")
        let profile = try json(try workspace.vsh(["profile", "ann", "--json"]).stdout)
        #expect(profile["points"] == .int(100))
        #expect(profile["hunts"]?.array.first?["hunt"]?.string == "downtown-fremont")
        #expect(profile["badges"]?.array.map { $0["badge"]?.string } == ["first-roll"])
        // `stop` is an id, as in check-in JSON; the name is `stop_name`.
        let newest = profile["recent"]?.array.first
        #expect(
            newest?["stop"]?.string == "luxor-sphinx" && newest?["stop_name"]?.string == "The Sphinx at Luxor"
        )
        #expect(try workspace.vsh(["profile", "Nobody"]).status == 65)
    }

    @Test func displayWidthsLineUpWideCharacters() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("東京タワー", "Bo")
        try workspace.visit("東京タワー", "sphere", at: "2026-11-21T18:00:00Z")
        try workspace.visit("Bo", "welcome-sign", at: "2026-11-21T18:10:00Z")
        let lines = try workspace.vsh(["leaderboard"]).stdout.split(separator: "\n").map(String.init)
        // Five wide characters take ten columns: POINTS ends in the same column on every line.
        #expect(
            lines == [
                "RANK  PLAYER      POINTS  HUNTS  STOPS  BADGES",
                "   1  東京タワー      80      0      1       1",
                "   2  Bo              60      0      1       1",
            ])
    }
}

@Suite struct CollageTests {
    @Test func aCollageOfTheHuntWithPhotosAndPlaceholders() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        try workspace.visit("Ann", "sphere", at: "2026-11-21T19:50:00Z")
        let out = workspace.root.appendingPathComponent("collage.jpg").path
        let result = try workspace.vsh(["collage", "--player", "Ann", "--hunt", "strip-classics", "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        // 3 x 4 tiles of 320 x (240 + 48) with 8 px gaps, a 56 px header.
        #expect(result.stdout == "\(out): 992 x 1248, 1 photos\n")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        #expect(bytes.starts(with: [0xFF, 0xD8]))
        // djpeg-equivalent check: libjpeg reads it back at the size written.
        let check = try TestSupport.run("vsh", ["exif", "--json", out])
        #expect(try json(check.stdout)["width"] == .int(992))
    }

    @Test func aCorruptStoredPhotoIsSkippedWithAWarning() throws {
        let workspace = try Workspace()
        try workspace.addPlayers("Ann")
        #expect(try workspace.checkin("Ann", "sign-inside.jpg").status == 0)
        let archive = URL(fileURLWithPath: workspace.db + ".photos")
        let stored = try #require(
            try FileManager.default.subpathsOfDirectory(atPath: archive.path).first { $0.hasSuffix(".jpg") })
        let path = archive.appendingPathComponent(stored)
        var bytes = try [UInt8](Data(contentsOf: path))
        bytes.replaceSubrange(bytes.count / 2..<bytes.count, with: [0xFF, 0xD9])
        for i in stride(from: 700, to: bytes.count - 2, by: 3) { bytes[i] = 0xFF }
        try Data(bytes).write(to: path)
        let out = workspace.root.appendingPathComponent("collage.jpg").path
        let result = try workspace.vsh(["collage", "--player", "Ann", "--hunt", "strip-classics", "-o", out])
        #expect(result.status == 0)
        #expect(result.stderr.contains("photo for welcome-sign skipped"), "\(result.stderr)")
        #expect(result.stdout.hasSuffix(", 0 photos\n"))
        #expect(FileManager.default.fileExists(atPath: out))
    }
}
