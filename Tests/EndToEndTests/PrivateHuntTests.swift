import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Private hunts on a real `vsh serve`, on SpatiaLite and on PostGIS: invisible and unplayable until a
/// player joins with the code, visible and playable after; the code never in what players receive;
/// wrong codes limited; the QR code of the join address read back by an independent decoder (zbarimg).
@Suite struct PrivateHuntTests {
    static let code = "TEAMDAY7"
    static let file = OrganiserAPITests.hunt(
        "team-day", name: "Team day at the springs", stops: [OrganiserAPITests.springs]
    ).replacingOccurrences(
        of: #""tolerance_m": 10}"#,
        with: #""tolerance_m": 10, "visibility": "private", "join_code": "\#(code)"}"#)

    static func fix(_ server: ServedVSH, token: String, minutesAgo: Double = 0, hunt: String? = nil)
        async throws
        -> (status: Int, answer: JSONValue?)
    {
        try await TwoInstanceTests.checkIn(
            server.base, token: token, session: .shared,
            fields: [
                ("lat", "36.1719"), ("lon", "-115.1893"), ("accuracy_m", "8"),
                ("fix_time", RFC3339.format(Date().addingTimeInterval(-minutesAgo * 60))),
            ] + (hunt.map { [("hunt", $0)] } ?? []))
    }

    @Test(arguments: [false, true]) func aPrivateHuntIsForThoseWhoJoined(postGIS: Bool) async throws {
        #expect(Self.file.contains(#""visibility": "private""#))
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write("team-day.geojson", Self.file)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)

        // Before joining: not in the feed, 404 as a hunt and as a board, and a check-in at its stop
        // is at no stop (naming it is naming an unknown hunt).
        for token in [nil, ann] {
            let feed = try await server.call("GET", "/v1/hunts", token: token)
            #expect(
                feed.status == 200 && feed.body.contains("strip-classics") && !feed.body.contains("team-day"))
            #expect(try await server.call("GET", "/v1/hunts/team-day", token: token).status == 404)
            #expect(try await server.call("GET", "/v1/leaderboard?hunt=team-day", token: token).status == 404)
        }
        let outside = try await Self.fix(server, token: ann, minutesAgo: 30)
        #expect(outside.answer?["verdict"]?.string == "rejected", "\(String(describing: outside.answer))")
        #expect(outside.answer?["stop"] == nil || outside.answer?["stop"] == .null)
        let named = try await Self.fix(server, token: ann, minutesAgo: 29, hunt: "team-day")
        #expect(named.status == 404 || named.status == 422, "\(named.status)")

        // A wrong code is 404; the right one, typed loosely, joins.
        let wrong = try await server.call("POST", "/v1/joins", json: #"{"code": "TEAMDAY8"}"#, token: ann)
        #expect(wrong.status == 404, "\(wrong.body)")
        let joined = try await server.call("POST", "/v1/joins", json: #"{"code": "teamday-7"}"#, token: ann)
        #expect(joined.status == 200, "\(joined.body)")
        #expect(try json(joined.body)["hunt"]?["id"]?.string == "team-day")
        #expect(
            try await server.call("POST", "/v1/joins", json: #"{"code": "TEAMDAY7"}"#, token: ann).status
                == 200)

        // After: in Ann's feed and hers to play; still nobody else's. The code is in no answer.
        let feed = try await server.call("GET", "/v1/hunts", token: ann)
        #expect(feed.body.contains("team-day") && !feed.body.contains(Self.code), "\(feed.body)")
        let hunt = try await server.call("GET", "/v1/hunts/team-day", token: ann)
        #expect(hunt.status == 200 && !hunt.body.contains(Self.code), "\(hunt.body)")
        #expect(try await server.call("GET", "/v1/hunts", token: bo).body.contains("team-day") == false)
        #expect(try await server.call("GET", "/v1/hunts/team-day").status == 404)
        let inside = try await Self.fix(server, token: ann, minutesAgo: 1)
        #expect(inside.answer?["stop"]?.string == "preserve-springs", "\(String(describing: inside.answer))")
        #expect(inside.answer?["verdict"]?.string == "accepted")
        // Her public profile shows the private hunt to those who may see it only.
        let seen = try await server.call("GET", "/v1/players/Ann%20Lee", token: ann)
        #expect(seen.body.contains("team-day") && seen.body.contains("preserve-springs"), "\(seen.body)")
        for token in [nil, bo] {
            let unseen = try await server.call("GET", "/v1/players/Ann%20Lee", token: token)
            #expect(unseen.status == 200 && !unseen.body.contains("team-day"), "\(unseen.body)")
            #expect(!unseen.body.contains("preserve-springs") && !unseen.body.contains("The old springs"))
        }
        let board = try await server.call("GET", "/v1/leaderboard?hunt=team-day", token: ann)
        #expect(board.status == 200 && board.body.contains("Ann Lee"), "\(board.body)")

        // Organisers see it, and its QR code holds the join address (read by zbarimg).
        #expect(try await server.call("GET", "/v1/hunts", token: mo).body.contains("team-day"))
        #expect(try await server.call("GET", "/v1/hunts/team-day/join-code.png", token: ann).status == 403)
        let decoded = try await server.decodedQRCode(
            "/v1/hunts/team-day/join-code.png", token: mo, in: workspace)
        #expect(decoded == "\(server.base)/join/\(Self.code)")
        let svg = try await server.call("GET", "/v1/hunts/team-day/join-code.svg", token: mo)
        #expect(svg.status == 200 && svg.body.hasPrefix("<svg") && svg.body.contains("<path"))
        #expect(
            try await server.call("GET", "/v1/hunts/strip-classics/join-code.svg", token: mo).status == 404)

        // Guessing: after ten wrong codes every try is refused, the right one too.
        var statuses: [Int] = []
        for n in 0..<11 {
            statuses.append(
                try await server.call("POST", "/v1/joins", json: #"{"code": "GUESS\#(n)ABC"}"#, token: bo)
                    .status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 404 } && statuses.last == 429, "\(statuses)")
        #expect(
            try await server.call("POST", "/v1/joins", json: #"{"code": "TEAMDAY7"}"#, token: bo).status
                == 429)
        #expect(try await server.call("GET", "/v1/hunts", token: bo).body.contains("team-day") == false)
    }

    /// `vsh-master hunt set --visibility private` makes a code; a file that is private without one,
    /// or with a code of look-alikes, is refused with the field named.
    /// A private hunt's pictures (its cover and its stops') are for its players and organisers: to
    /// anyone else, with a token or without, the hunt has none (404); its players get them with
    /// their token, marked for the browser's cache only.
    @Test(arguments: [false, true]) func aPrivateHuntsPicturesAreForItsPlayers(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        let file = Self.file.replacingOccurrences(
            of: #""tolerance_m": 10,"#, with: #""tolerance_m": 10, "image": "images/cover.png","#
        ).replacingOccurrences(
            of: #""properties": {"name": "The old springs""#,
            with: #""properties": {"image": "images/cover.png", "name": "The old springs""#)
        #expect(file.components(separatedBy: "images/cover.png").count == 3, "\(file)")
        try workspace.write("team-day.geojson", file)
        // A 1 x 1 PNG, served as it is.
        let png = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
        )!
        let images = URL(fileURLWithPath: workspace.hunts).appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try png.write(to: images.appendingPathComponent("cover.png"))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let pictures = ["/v1/hunts/team-day/image", "/v1/stops/preserve-springs/image"]
        for path in pictures {
            #expect(try await server.call("GET", path).status == 404, "\(path) without a token")
            #expect(try await server.call("GET", path, token: ann).status == 404, "\(path) before joining")
            let organiser = try await server.call("GET", path, token: mo)
            #expect(organiser.status == 200, "\(path) for the organiser: \(organiser.body)")
        }
        #expect(
            try await server.call("POST", "/v1/joins", json: #"{"code": "\#(Self.code)"}"#, token: ann).status
                == 200)
        for path in pictures {
            let answer = try await server.call("GET", path, token: ann)
            #expect(answer.status == 200 && answer.headers["content-type"] == "image/png", "\(path)")
            #expect(answer.headers["cache-control"]?.hasPrefix("private") == true, "\(answer.headers)")
            #expect(try await server.call("GET", path).status == 404, "\(path) still without a token")
        }
    }

    @Test func authoringPrivateHunts() throws {
        let workspace = try Workspace()
        let made = try workspace.master(["hunt", "set", "strip-classics", "--visibility", "private"])
        #expect(made.status == 0, "\(made.stderr)")
        guard case .object(let doc) = try json(try workspace.fileText("strip-classics")),
            let code = doc["hunt"]?["join_code"]?.string
        else {
            Issue.record("no join code written")
            return
        }
        #expect(code.count == JoinCode.madeLength && JoinCode.problem(code) == nil, "\(code)")
        #expect(try workspace.master(["validate"]).status == 0)
        let bad = try workspace.master(["hunt", "set", "strip-classics", "--join-code", "O0O0I1"])
        #expect(bad.status != 0 && bad.stderr.contains("--join-code"), "\(bad.stderr)")
        let text = try workspace.fileText("strip-classics").replacingOccurrences(
            of: #""join_code": "\#(code)""#, with: #""join_code": null"#)
        try workspace.write("strip-classics.geojson", text)
        let refused = try workspace.master(["validate"])
        #expect(refused.status != 0 && refused.stderr.contains("join_code"), "\(refused.stderr)")
    }
}
