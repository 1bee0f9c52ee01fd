import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Teams on a real `vsh serve`, on SpatiaLite and on PostGIS: made by a player or an organiser,
/// joined by code, full at `max_team_size`; a stop and the bonus count once a team.
@Suite struct TeamTests {
    /// A teams hunt of two stops 67 m apart, teams of at most three.
    static let file = OrganiserAPITests.hunt(
        "springs-preserve", stops: [OrganiserAPITests.springs, EventTests.pond]
    ).replacingOccurrences(
        of: #""tolerance_m": 10}"#, with: #""tolerance_m": 10, "play": "teams", "max_team_size": 3}"#)

    static let springs = ("36.1719", "-115.1893")
    static let pond = ("36.1721", "-115.1886")

    /// Two teams of three whose members visit overlapping stops: each stop counts once a team,
    /// the bonus once; the players' own board is as it was; a fourth member is refused; a player
    /// on no team checks in for nothing; leaving keeps what a check-in earned the team.
    @Test(arguments: [false, true]) func twoTeamsOfThree(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        #expect(TeamTests.file.contains(#""play": "teams""#))
        try workspace.write("springs-preserve.geojson", Self.file)
        // Badges that do not hang on the hour: a team earns the first one once, as a player does;
        // two stops visited is a badge of the Aces', not of any one of them.
        try workspace.write(
            "badges.json",
            """
            {"badges": [
              {"id": "first-roll", "name": "First Roll", "points": 10, "rule": {"kind": "first_checkin"}},
              {"id": "pair", "name": "Pair", "points": 5, "rule": {"kind": "stops_visited", "count": 2}},
              {"id": "veteran", "name": "Veteran", "points": 7, "rule": {"kind": "hunts_completed", "count": 1}}
            ]}
            """)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        var tokens: [String: String] = [:]
        for name in ["Ann", "Abe", "Amy", "Ben", "Bea", "Bob", "Dee", "Zed", "Mo Kent"] {
            tokens[name] = try await server.register(
                name, email: "\(name.filter(\.isLetter).lowercased())@example.org")
        }
        func token(_ name: String) -> String { tokens[name]! }
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)

        // Ann makes a team and is its first member; Mo makes one ahead of the event, empty.
        let aces = try await server.call(
            "POST", "/v1/hunts/springs-preserve/teams", json: #"{"name": "  The   Aces "}"#,
            token: token("Ann"))
        #expect(aces.status == 201, "\(aces.body)")
        let acesCode = try json(aces.body)["join_code"]?.string ?? ""
        let acesID = try json(aces.body)["team"]?["id"]?.int ?? -1
        #expect(try json(aces.body)["team"]?["name"]?.string == "The Aces")
        #expect(acesCode.count >= 6)
        let taken = try await server.call(
            "POST", "/v1/hunts/springs-preserve/teams", json: #"{"name": "the aces"}"#, token: token("Ben"))
        #expect(taken.status == 409, "\(taken.body)")
        #expect(
            try await server.call(
                "POST", "/v1/hunts/springs-preserve/teams", json: #"{"name": " "}"#, token: token("Ben")
            ).status == 422)
        let bees = try await server.call(
            "POST", "/v1/hunts/springs-preserve/teams", json: #"{"name": "Bees"}"#, token: token("Mo Kent"))
        #expect(bees.status == 201)
        let beesCode = try json(bees.body)["join_code"]?.string ?? ""
        let beesID = try json(bees.body)["team"]?["id"]?.int ?? -1

        for (name, code) in [
            ("Abe", acesCode), ("Amy", acesCode), ("Ben", beesCode), ("Bea", beesCode), ("Bob", beesCode),
        ] {
            let joined = try await server.call(
                "POST", "/v1/joins", json: #"{"code": "\#(code)"}"#, token: token(name))
            #expect(joined.status == 200, "\(name): \(joined.body)")
            #expect(try json(joined.body)["hunt"]?["id"]?.string == "springs-preserve")
        }
        // Full at three.
        let full = try await server.call(
            "POST", "/v1/joins", json: #"{"code": "\#(acesCode.lowercased())"}"#, token: token("Dee"))
        #expect(full.status == 409, "\(full.body)")
        #expect(full.body.contains("The Aces"))

        // Fixes less than two minutes old, seconds apart, within the stops' accuracies.
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 20).rounded(.down))
        var verdicts: [String: String] = [:]
        for (name, place, offset) in [
            ("Ann", Self.springs, -15.0), ("Abe", Self.springs, -10), ("Amy", Self.pond, -5),
            ("Ben", Self.springs, -12), ("Bea", Self.springs, -8), ("Zed", Self.springs, -6),
        ] {
            let answer = try await TwoInstanceTests.checkIn(
                server.base, token: token(name), session: .shared,
                fields: [
                    ("lat", place.0), ("lon", place.1), ("accuracy_m", "48"),
                    ("fix_time", RFC3339.format(now.addingTimeInterval(offset))),
                ])
            verdicts[name] = answer.answer?["verdict"]?.string ?? answer.answer.map(\.compactText) ?? "none"
        }
        for name in ["Ann", "Abe", "Amy", "Ben", "Bea"] {
            #expect(verdicts[name] == "accepted", "\(name): \(verdicts)")
        }
        // Zed is on no team: a teams hunt is not his to play.
        #expect(verdicts["Zed"] != "accepted", "\(verdicts)")

        // The team board: the springs once for the Aces (three members, two there), the pond,
        // the bonus once, the first badge once and the pair of stops (hunts completed across the
        // league is no team badge): 50 + 50 + 50 + 10 + 5; the Bees the springs and the badge once.
        func board() async throws -> [JSONValue] {
            let answer = try await server.call("GET", "/v1/leaderboard?hunt=springs-preserve&by=team")
            guard case .array(let rows) = try json(answer.body) else {
                throw FixtureError("not a board: \(answer.body)")
            }
            return rows
        }
        var rows = try await board()
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.first?["team"]?.string == "The Aces" && rows.first?["points"]?.int == 165, "\(rows)")
        #expect(rows.first?["stops_visited"]?.int == 2 && rows.first?["rank"]?.int == 1)
        #expect(rows.first?["members"] == .array([.string("Ann"), .string("Abe"), .string("Amy")]))
        #expect(rows.first?["team_id"]?.int == acesID)
        #expect(
            rows.last?["team"]?.string == "Bees" && rows.last?["points"]?.int == 60
                && rows.last?["rank"]?.int == 2)
        #expect(
            try await server.call("GET", "/v1/leaderboard?hunt=springs-preserve&by=house").status == 400)

        // The players' own board is unchanged: each member their own stop's points and first badge.
        let players = try await server.call("GET", "/v1/leaderboard?hunt=springs-preserve")
        guard case .array(let playerRows) = try json(players.body) else { throw FixtureError(players.body) }
        #expect(playerRows.count == 5, "\(players.body)")
        #expect(playerRows.allSatisfy { $0["points"]?.int == 60 }, "\(players.body)")
        let amy = try await server.call("GET", "/v1/players/Amy")
        #expect(try json(amy.body)["points"]?.int == 60, "\(amy.body)")

        // The team's page: who got where first; the code for its members only.
        let page = try await server.call("GET", "/v1/teams/\(acesID)", token: token("Abe"))
        #expect(page.status == 200, "\(page.body)")
        let team = try json(page.body)
        #expect(team["points"]?.int == 165 && team["completed"] == .bool(true) && team["rank"]?.int == 1)
        #expect(team["badges"] == .array([.string("first-roll"), .string("pair")]), "\(team)")
        #expect(team["join_code"]?.string == acesCode)
        guard case .array(let stops) = team["stops"] else { throw FixtureError(page.body) }
        #expect(
            stops.first?["visited_by"]?.string == "Ann" && stops.last?["visited_by"]?.string == "Amy",
            "\(stops)")
        for viewer in [token("Ben"), nil] {
            let other = try await server.call("GET", "/v1/teams/\(acesID)", token: viewer)
            #expect(other.status == 200 && !other.body.contains(acesCode), "\(other.body)")
        }
        let list = try await server.call("GET", "/v1/hunts/springs-preserve/teams", token: token("Ben"))
        #expect(!list.body.contains(acesCode) && list.body.contains(beesCode), "\(list.body)")
        #expect(try json(list.body)["mine"]?["id"]?.int == beesID)

        // Leaving: only the member or an organiser; the pond Amy visited stays the Aces'.
        #expect(
            try await server.call("DELETE", "/v1/teams/\(acesID)/members/Amy", token: token("Ben")).status
                == 403)
        #expect(
            try await server.call("DELETE", "/v1/teams/\(acesID)/members/Amy", token: token("Amy")).status
                == 204)
        #expect(
            try await server.call("DELETE", "/v1/teams/\(acesID)/members/Amy", token: token("Amy")).status
                == 404)
        rows = try await board()
        #expect(
            rows.first?["points"]?.int == 165
                && rows.first?["members"] == .array([.string("Ann"), .string("Abe")]), "\(rows)")
        // A place is free: Dee joins; an organiser moving Bob onto the full team is refused, onto
        // the Bees again allowed.
        #expect(
            try await server.call(
                "POST", "/v1/joins", json: #"{"code": "\#(acesCode)"}"#, token: token("Dee")
            )
            .status == 200)
        #expect(
            try await server.call("PUT", "/v1/teams/\(acesID)/members/Bob", token: token("Mo Kent")).status
                == 409)
        #expect(
            try await server.call("PUT", "/v1/teams/\(acesID)/members/Bob", token: token("Ann")).status == 403
        )

        // A penalty for the Aces, on the team board and in the results.
        let penalty = try await server.call(
            "POST", "/v1/adjustments",
            json: #"{"team": \#(acesID), "points": -15, "reason": "Late to the start"}"#,
            token: token("Mo Kent"))
        #expect(penalty.status == 201, "\(penalty.body)")
        #expect(try json(penalty.body)["hunt"]?.string == "springs-preserve")
        rows = try await board()
        #expect(rows.first?["points"]?.int == 150, "\(rows)")

        // The results: a row a team, read by Python's csv.
        let csv = try await server.call(
            "GET", "/v1/hunts/springs-preserve/results.csv", token: token("Mo Kent"))
        #expect(csv.status == 200)
        let path = workspace.root.appendingPathComponent("teams.csv")
        try Data(csv.body.utf8).write(to: path)
        let read = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                path.path,
            ])
        guard case .array(let results) = try json(read.stdout) else { throw FixtureError(read.stderr) }
        #expect(results.count == 2)
        #expect(results.first?["team"]?.string == "The Aces" && results.first?["points"]?.string == "150")
        #expect(results.first?["adjustments"]?.string == "-15", "\(results)")
        #expect(results.first?["members"]?.string == "Ann; Abe; Dee", "\(results)")
        #expect(results.first?["completed"]?.string == "yes" && results.last?["completed"]?.string == "no")

        // The board reads each team's running totals: `vsh doctor` checks them against a rescore;
        // a wrong one is found, and `vsh rescore` mends it.
        #expect(try workspace.query("SELECT count(*) FROM team_scores") == ["2"])
        #expect(try workspace.vsh(["doctor"], hunts: false).status == 0)
        let damage = "UPDATE team_scores SET points = points + 1 WHERE team_id = \(beesID)"
        if postGIS {
            _ = try workspace.query(damage)
        } else {
            let changed = try TestSupport.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sqlite3,sys\ncon = sqlite3.connect(sys.argv[1])\ncon.execute(sys.argv[2])\ncon.commit()",
                    workspace.db, damage,
                ])
            #expect(changed.status == 0, "\(changed.stderr)")
        }
        let doctor = try workspace.vsh(["doctor", "--json"], hunts: false)
        let report = try json(doctor.stdout)
        #expect(
            doctor.status != 0 && report["wrong_team_totals"] == .int(1) && report["wrong_totals"] == .int(0),
            "\(doctor.stdout)")
        #expect(try workspace.vsh(["rescore"]).status == 0)
        #expect(try workspace.vsh(["doctor"], hunts: false).status == 0)
        #expect(try await board().first?["points"]?.int == 150)

        // A player makes a few teams, not a flood: the sixth in a row waits (429).
        let flo = try await server.register("Flo", email: "flo@example.org")
        var made: [Int] = []
        for n in 1...6 {
            made.append(
                try await server.call(
                    "POST", "/v1/hunts/springs-preserve/teams", json: #"{"name": "Flo \#(n)"}"#, token: flo
                ).status)
        }
        #expect(made == [201, 201, 201, 201, 201, 429], "\(made)")
    }

    /// A solo hunt has no teams; a hunt file's `play` must be one of the three.
    @Test func aSoloHuntHasNoTeams() async throws {
        let workspace = try Workspace.on(postGIS: false)
        try workspace.write(
            "springs-preserve.geojson",
            OrganiserAPITests.hunt("springs-preserve", stops: [OrganiserAPITests.springs]))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann", email: "ann@example.org")
        let made = try await server.call(
            "POST", "/v1/hunts/springs-preserve/teams", json: #"{"name": "Aces"}"#, token: ann)
        #expect(made.status == 409, "\(made.body)")
        #expect(
            try await server.call("GET", "/v1/leaderboard?hunt=springs-preserve&by=team").body == "[]")
        let bad = Self.file.replacingOccurrences(of: #""play": "teams""#, with: #""play": "pairs""#)
        let folder = workspace.root.appendingPathComponent("bad")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(bad.utf8).write(to: folder.appendingPathComponent("springs-preserve.geojson"))
        let validated = try TestSupport.run("vsh-master", ["validate", "--hunts", folder.path])
        #expect(validated.status != 0)
        #expect(
            validated.stderr.contains("play") && validated.stderr.contains("\"solo\""), "\(validated.stderr)")
    }

    /// `vsh-master hunt set --play --max-team-size` write the fields; bad values are usage errors.
    @Test func authoringATeamsHunt() throws {
        let workspace = try Workspace()
        let made = try workspace.master([
            "hunt", "set", "strip-classics", "--play", "teams", "--max-team-size", "4",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let doc = try json(try workspace.fileText("strip-classics"))
        #expect(doc["hunt"]?["play"]?.string == "teams" && doc["hunt"]?["max_team_size"]?.int == 4, "\(doc)")
        #expect(try workspace.master(["validate"]).status == 0)
        let bad = try workspace.master(["hunt", "set", "strip-classics", "--play", "pairs"])
        #expect(bad.status == 64 && bad.stderr.contains("--play"), "\(bad.stderr)")
        let big = try workspace.master(["hunt", "set", "strip-classics", "--max-team-size", "0"])
        #expect(big.status == 64 && big.stderr.contains("--max-team-size"), "\(big.stderr)")
        #expect(
            try workspace.master(["hunt", "set", "strip-classics", "--max-team-size", "none"]).status == 0)
        #expect(try json(try workspace.fileText("strip-classics"))["hunt"]?["max_team_size"] == nil)

        // Players' positions on the organisers' map: on, written; off, gone from the file.
        #expect(try workspace.master(["hunt", "set", "strip-classics", "--share-positions"]).status == 0)
        #expect(try json(try workspace.fileText("strip-classics"))["hunt"]?["share_positions"] == .bool(true))
        #expect(try workspace.master(["validate"]).status == 0)
        #expect(try workspace.master(["hunt", "set", "strip-classics", "--no-share-positions"]).status == 0)
        #expect(try json(try workspace.fileText("strip-classics"))["hunt"]?["share_positions"] == nil)
        // In the file by hand, it must be true or false.
        let text = try workspace.fileText("strip-classics").replacingOccurrences(
            of: #""name": "Strip Classics","#, with: #""name": "Strip Classics", "share_positions": "yes","#)
        #expect(text.contains(#""share_positions": "yes""#))
        try text.write(toFile: workspace.hunts + "/strip-classics.geojson", atomically: true, encoding: .utf8)
        let invalid = try workspace.master(["validate"])
        #expect(invalid.status != 0 && invalid.stderr.contains("share_positions"), "\(invalid.stderr)")
    }
}
