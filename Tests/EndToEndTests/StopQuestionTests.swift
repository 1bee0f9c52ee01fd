import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Questions at a stop on a real `vsh serve`, on SpatiaLite and on PostGIS: answers folded for case,
/// accents and spaces, a number within its tolerance, a choice, three tries and the fourth refused,
/// the answer's points on the boards and kept through a rescore, a stop that asks for the answer,
/// and no answer in anything players are sent.
@Suite struct StopQuestionTests {
    static let file = OrganiserAPITests.hunt(
        "fountain-walk", name: "Fountain walk",
        stops: [
            StopCodeTests.stop(
                "water-show", "The water show", lat: 36.1126, lon: -115.1767,
                #""question": "Which hotel's lake is this?", "answers": ["Bellagio"], "answer_points": 20"#),
            StopCodeTests.stop(
                "jet-count", "The jets", lat: 36.1140, lon: -115.1767,
                #""question": "How many jets does the sign say?", "answers": [{"number": 1214, "tolerance": 10}], "answer_points": 15, "proof": ["answer"]"#
            ),
            StopCodeTests.stop(
                "cirque", "The theatre", lat: 36.1155, lon: -115.1767,
                #""question": "Which show plays here?", "choices": ["O", "Mystère", "KÀ"], "answers": ["O"], "attempts": 1, "answer_points": 5"#
            ),
        ])

    /// The server's clock: a fixed noon in Las Vegas, so that no time-of-day badge (the league's
    /// Night Owl, 10 pm to 4 am, and Early Bird) adds to the points whenever the test runs.
    static let now = RFC3339.parse(fixtureNow)!

    static func fix(_ lat: String, _ lon: String, _ seconds: Double) -> [(String, String)] {
        [
            ("lat", lat), ("lon", lon), ("accuracy_m", "5"),
            ("fix_time", RFC3339.format(Self.now.addingTimeInterval(-seconds))),
        ]
    }

    @Test(arguments: [false, true]) func answersAreFoldedCountedAndScored(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write("fountain-walk.geojson", Self.file)
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let sent = SentToPlayers(server)
        let checkIn = sent.checkIn
        let points = server.boardPoints
        func answerRule(_ answer: (Int, JSONValue?)) -> String { SentToPlayers.detail(answer, "answer") }
        let lake = { (seconds: Double) in Self.fix("36.1126", "-115.1767", seconds) }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let cy = try await server.register("Cy Ng", email: "cy@example.org")
        let dee = try await server.register("Dee Park", email: "dee@example.org")
        let eve = try await server.register("Eve Cho", email: "eve@example.org")

        // "Bellagio", "bellagio " and "BELLAGÍO" are the same answer.
        let right = try await checkIn(ann, lake(60) + [("answer", "bellagio ")])
        #expect(
            right.1?["verdict"]?.string == "accepted" && right.1?["points"]?.int == 70,
            "\(String(describing: right.1))")
        #expect(answerRule(right) == "right answer: +20 points")
        #expect(right.1?["answer"]?["right"] == .bool(true) && right.1?["answer"]?["tries_left"]?.int == 3)
        let accented = try await checkIn(cy, lake(60) + [("answer", "BELLAGÍO")])
        #expect(accented.1?["points"]?.int == 70, "\(String(describing: accented.1))")

        // Three wrong answers, each a check-in that still counts for the stop; the fourth is refused.
        var details: [String] = []
        for (n, guess) in ["Caesars", "Wynn", "Paris", "Bellagio"].enumerated() {
            let answer = try await checkIn(bo, lake(Double(60 - n * 10)) + [("answer", guess)])
            #expect(answer.1?["verdict"]?.string == "accepted", "\(String(describing: answer.1))")
            details.append(answerRule(answer))
            if n == 0 {
                #expect(
                    answer.1?["answer"]?["right"] == .bool(false)
                        && answer.1?["answer"]?["tries_left"]?.int == 2)
            }
            if n == 3 { #expect(answer.1?["answer"] == nil) }
        }
        #expect(
            details == [
                "not the answer (2 tries left); the stop still counts",
                "not the answer (1 try left); the stop still counts",
                "not the answer (no tries left); the stop still counts",
                "no tries left: 3 wrong answers of 3 allowed",
            ], "\(details)")
        let board = try await points("/v1/leaderboard?hunt=fountain-walk")
        // (Each player's first check-in also earns the league's 10-point first-check-in badge.)
        #expect(board["Ann Lee"] == 80 && board["Bo Diaz"] == 60 && board["Cy Ng"] == 80, "\(board)")

        // A stop that asks for the answer: a number within its tolerance, typed the local way; none refused.
        let jets = { (seconds: Double) in Self.fix("36.1140", "-115.1767", seconds) }
        let none = try await checkIn(dee, jets(110))
        #expect(none.1?["verdict"]?.string == "rejected" && answerRule(none).contains("asks a question"))
        let far = try await checkIn(dee, jets(100) + [("answer", "1,250")])
        #expect(
            far.1?["verdict"]?.string == "rejected" && answerRule(far) == "not the answer: 2 tries left",
            "\(answerRule(far))")
        let close = try await checkIn(dee, jets(90) + [("answer", "1,220")])
        #expect(
            close.1?["verdict"]?.string == "accepted" && close.1?["points"]?.int == 65,
            "\(String(describing: close.1))")
        // A choice, with one try: a wrong pick and nothing more.
        let theatre = { (seconds: Double) in Self.fix("36.1155", "-115.1767", seconds) }
        let pick = try await checkIn(eve, theatre(30) + [("answer", "Mystère")])
        #expect(
            pick.1?["points"]?.int == 50
                && answerRule(pick) == "not the answer (no tries left); the stop still counts",
            "\(answerRule(pick))")
        let again = try await checkIn(eve, theatre(20) + [("answer", "o")])
        #expect(answerRule(again).hasPrefix("no tries left"), "\(answerRule(again))")
        let walk = try await points("/v1/leaderboard?hunt=fountain-walk")
        #expect(walk["Dee Park"] == 75 && walk["Eve Cho"] == 60, "\(walk)")

        // An answer longer than any question takes is refused before anything is recorded.
        let long = try await checkIn(ann, lake(5) + [("answer", String(repeating: "x", count: 301))])
        #expect(long.0 == 422 && long.1?["detail"]?.string?.hasPrefix("answer:") == true)

        // Players read the question and its choices, never its answers.
        for path in [
            "/v1/hunts", "/v1/hunts/fountain-walk", "/v1/me/checkins", "/v1/leaderboard?hunt=fountain-walk",
        ] {
            for token in [nil, ann] { _ = try await sent.get(path, token: token) }
        }
        let everything = sent.all
        #expect(everything.contains("Which hotel's lake is this?") && everything.contains("Mystère"))
        #expect(
            !everything.contains("Bellagio") && !everything.contains("1214")
                && !everything.contains("\"answers\""))
        #expect(
            !server.log.contains("Bellagio") && !server.log.contains("BELLAGÍO")
                && !server.log.contains("Caesars"))

        // The answer's points are kept with the check-in: a sync that changes them rescores from it.
        try workspace.write(
            "fountain-walk.geojson",
            Self.file.replacingOccurrences(of: #""answer_points": 20"#, with: #""answer_points": 25"#))
        let sync = try workspace.vsh(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        let after = try workspace.query(
            "SELECT p.name || ':' || s.points FROM player_scores s JOIN players p ON p.id = s.player_id ORDER BY p.name"
        )
        #expect(after == ["Ann Lee:85", "Bo Diaz:60", "Cy Ng:85", "Dee Park:75", "Eve Cho:60"], "\(after)")
    }

    /// Authoring a question with `vsh-master stop set`, its validation, and `vsh checkin --answer`.
    @Test func theCommandsAskAndAnswer() throws {
        let workspace = try Workspace()
        try workspace.write("fountain-walk.geojson", Self.file)
        let master = workspace.master
        let set = try master([
            "stop", "set", "water-show", "--question", "What year did the lake open?", "--answer", "1998",
            "--tolerance", "1", "--answer-points", "30", "--attempts", "2",
        ])
        #expect(set.status == 0, "\(set.stderr)")
        let file = try String(contentsOfFile: workspace.hunts + "/fountain-walk.geojson", encoding: .utf8)
        let stop = try json(file)["features"]?.array.first { $0["id"]?.string == "water-show" }?["properties"]
        #expect(stop?["question"]?.string == "What year did the lake open?")
        #expect(stop?["answers"]?.array.first?["tolerance"]?.int == 1 && stop?["attempts"]?.int == 2)
        // A question without answers, a choice answer that is no choice, a proof the stop cannot meet.
        let bare = try master(["stop", "set", "cirque", "--question", "none"])
        #expect(bare.status == 0)
        let noAnswers = try master(["stop", "set", "cirque", "--question", "Which show?"])
        #expect(noAnswers.status == 64 && noAnswers.stderr.contains("--answer"), "\(noAnswers.stderr)")
        let notAChoice = try master([
            "stop", "set", "cirque", "--question", "Which show?", "--choice", "O", "--choice", "KÀ",
            "--answer", "Love",
        ])
        #expect(
            notAChoice.status != 0 && notAChoice.stderr.contains("not one of the choices"),
            "\(notAChoice.stderr)")
        let proof = try master(["stop", "set", "cirque", "--proof", "answer"])
        #expect(proof.status == 64 && proof.stderr.contains("asks no question"), "\(proof.stderr)")
        try workspace.write(
            "fountain-walk.geojson",
            Self.file.replacingOccurrences(of: #""answers": ["Bellagio"], "#, with: ""))
        let invalid = try master(["validate"])
        #expect(invalid.status != 0 && invalid.stderr.contains("answers"), "\(invalid.stderr)")
        try workspace.write("fountain-walk.geojson", file)
        #expect(try master(["validate"]).status == 0)

        #expect(try workspace.vsh(["player", "add", "Ann Lee"]).status == 0)
        let now = "2026-11-27T21:00:10Z"
        func checkIn(_ answer: String) throws -> TestSupport.ProcessResult {
            try workspace.vsh([
                "checkin", "--player", "Ann Lee", "--fix", "36.1126,-115.1767", "--time",
                "2026-11-27T21:00:00Z",
                "--accuracy", "5", "--answer", answer, "--now", now, "--json",
            ])
        }
        let wrong = try checkIn("2005")
        #expect(wrong.status == 0 && wrong.stdout.contains("not the answer (1 try left)"), "\(wrong.stdout)")
        let right = try checkIn("1,997")
        #expect(try json(right.stdout)["points"]?.int == 30, "\(right.stdout)")

        // A hurried walk to the jets (to review), with the right answer: a moderator's approval keeps
        // the answer's result, though the answer is not stored, and the points come with it.
        let hurried = try workspace.vsh([
            "checkin", "--player", "Ann Lee", "--fix", "36.1140,-115.1767", "--time", "2026-11-27T21:00:10Z",
            "--accuracy", "5", "--answer", "1214", "--now", "2026-11-27T21:00:15Z", "--json",
        ])
        #expect(hurried.status == 2, "\(hurried.stdout)\(hurried.stderr)")
        let pending = try #require(try json(hurried.stdout)["id"]?.int)
        let approved = try workspace.vsh(["review", "approve", String(pending)])
        #expect(
            approved.status == 0 && approved.stdout.contains("+65 points"),
            "\(approved.stdout)\(approved.stderr)")
        #expect(try workspace.query("SELECT answer_right FROM checkins WHERE id = \(pending)") == ["1"])
    }
}
