import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Running an event on a real `vsh serve`: the results the organiser takes home.
@Suite struct EventTests {
    /// East of the springs, their edges touching.
    static let pond = OrganiserAPITests.stop("preserve-pond", "The pond", lat: 36.1721, lon: -115.1886)

    /// `results.csv` read back by Python's `csv` module: a row a player by rank, the finish on the
    /// hunt's clock, a name a spreadsheet would run as a formula defused; organisers only.
    @Test(arguments: [false, true]) func theResultsAreACSVForASpreadsheet(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write(
            "springs-preserve.geojson",
            OrganiserAPITests.hunt(
                "springs-preserve", stops: [OrganiserAPITests.springs, Self.pond]))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("-Bo O'Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        // Fixes less than two minutes old (older ones wait for a moderator), whole seconds; the two
        // stops 67 m apart, within the fixes' accuracies (the server receives them a moment apart).
        let finish = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 15).rounded(.down))
        for (token, lat, lon, at) in [
            (ann, "36.1719", "-115.1893", finish.addingTimeInterval(-30)),
            (ann, "36.1721", "-115.1886", finish),
            (bo, "36.1719", "-115.1893", finish.addingTimeInterval(-20)),
        ] {
            let answer = try await TwoInstanceTests.checkIn(
                server.base, token: token, session: .shared,
                fields: [("lat", lat), ("lon", lon), ("accuracy_m", "48"), ("fix_time", RFC3339.format(at))])
            #expect(
                answer.answer?["verdict"]?.string == "accepted", "\(answer.answer.map(\.compactText) ?? "")")
        }
        #expect(
            try await server.call("GET", "/v1/hunts/springs-preserve/results.csv", token: ann).status == 403)
        #expect(try await server.call("GET", "/v1/hunts/no-such-hunt/results.csv", token: mo).status == 404)
        let csv = try await server.call("GET", "/v1/hunts/springs-preserve/results.csv", token: mo)
        #expect(csv.status == 200 && csv.headers["content-type"]?.hasPrefix("text/csv") == true)
        #expect(csv.body.contains("\r\n"), "\(csv.body)")
        let file = workspace.root.appendingPathComponent("results.csv")
        try Data(csv.body.utf8).write(to: file)
        let read = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import csv, json, sys; print(json.dumps(list(csv.DictReader(open(sys.argv[1], newline='', encoding='utf-8')))))",
                file.path,
            ])
        guard case .array(let rows) = try json(read.stdout) else {
            Issue.record("not CSV: \(read.stdout) \(read.stderr)")
            return
        }
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.first?["player"]?.string == "Ann Lee" && rows.first?["rank"]?.string == "1")
        #expect(rows.first?["completed"]?.string == "yes" && rows.first?["stops_visited"]?.string == "2")
        #expect(rows.first?["finished_at"]?.string == RFC3339.format(finish), "\(rows)")
        // 13:xx in Las Vegas when it is 21:xx in UTC: the hunt's own clock.
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = TimeZone(identifier: "America/Los_Angeles")
        local.dateFormat = "yyyy-MM-dd HH:mm:ss"
        #expect(rows.first?["finished_local"]?.string == local.string(from: finish))
        #expect(rows.last?["player"]?.string == "'-Bo O'Diaz", "\(rows)")
        #expect(rows.last?["completed"]?.string == "no" && rows.last?["finished_at"]?.string == "")
    }

    /// Announcements: organisers only, checked text, listed newest first, a private hunt's for its
    /// players only, and an open event stream told at once (its id only).
    @Test(arguments: [false, true]) func announcementsReachEveryOpenPage(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write("team-day.geojson", PrivateHuntTests.file)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        #expect(
            try await server.call(
                "POST", "/v1/joins", json: #"{"code": "\#(PrivateHuntTests.code)"}"#, token: ann
            )
            .status == 200)

        #expect(
            try await server.call("POST", "/v1/announcements", json: #"{"text": "Hi"}"#, token: ann).status
                == 403)
        #expect(
            try await server.call("POST", "/v1/announcements", json: #"{"text": "  "}"#, token: mo).status
                == 422)
        let long = String(repeating: "a", count: 501)
        #expect(
            try await server.call("POST", "/v1/announcements", json: #"{"text": "\#(long)"}"#, token: mo)
                .status == 422)
        #expect(
            try await server.call(
                "POST", "/v1/announcements", json: #"{"text": "Hi", "hunt": "no-such-hunt"}"#, token: mo
            ).status == 422)

        // A page listening to the event stream is told of the next announcement.
        let stream = try RawConnection(port: server.port)
        defer { stream.close() }
        try stream.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
        let made = try await server.call(
            "POST", "/v1/announcements", json: #"{"text": "Lunch at the <b>café</b> at 1"}"#, token: mo)
        #expect(made.status == 201, "\(made.body)")
        let id = try json(made.body)["id"]?.int ?? -1
        let heard = stream.readUntilClosed(seconds: 2).text
        #expect(heard.contains("event: announcement\ndata: \(id)\n"), "\(heard)")
        #expect(!heard.contains("café"), "the stream carries the id only")
        let secret = try await server.call(
            "POST", "/v1/announcements",
            json: #"{"text": "Team day: the last clue is at the gate", "hunt": "team-day"}"#,
            token: mo)
        #expect(secret.status == 201)

        // Listed newest first; the private hunt's only for its player and the organiser.
        for (token, seesSecret) in [(ann, true), (mo, true), (bo, false), (nil, false)] {
            let list = try await server.call("GET", "/v1/announcements", token: token)
            guard case .array(let items) = try json(list.body) else {
                Issue.record("not a list: \(list.body)")
                continue
            }
            #expect(items.last?["text"]?.string == "Lunch at the <b>café</b> at 1")
            #expect(items.last?["by"]?.string == "Mo Kent")
            #expect(list.body.contains("the last clue") == seesSecret, "\(list.body)")
        }
    }

    /// Adjustments: organisers only, checked, on the hunt's board (a hunt's) or only the all-time one,
    /// listed on the profile with the reason, in the results, and in the hunt's audit list.
    @Test(arguments: [false, true]) func anAdjustmentIsOnTheBoardAndTheProfile(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write(
            "springs-preserve.geojson",
            OrganiserAPITests.hunt("springs-preserve", stops: [OrganiserAPITests.springs, Self.pond]))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        for token in [ann, bo] {
            let visit = try await TwoInstanceTests.checkIn(
                server.base, token: token, session: .shared,
                fields: [
                    ("lat", "36.1719"), ("lon", "-115.1893"), ("accuracy_m", "8"),
                    ("fix_time", RFC3339.format(Date().addingTimeInterval(-10))),
                ])
            #expect(visit.answer?["verdict"]?.string == "accepted")
        }
        let points = server.boardPoints
        let hunt0 = try await points("/v1/leaderboard?hunt=springs-preserve")
        let all0 = try await points("/v1/leaderboard")
        #expect(hunt0.count == 2 && hunt0["Ann Lee"] == hunt0["Bo Diaz"], "\(hunt0)")

        let best =
            #"{"player": "Ann Lee", "hunt": "springs-preserve", "points": 25, "reason": "Best photo of the day"}"#
        #expect(try await server.call("POST", "/v1/adjustments", json: best, token: ann).status == 403)
        for (body, words) in [
            (#"{"player": "Ann Lee", "points": 0, "reason": "x"}"#, "must not be 0"),
            (#"{"player": "Ann Lee", "points": 2.5, "reason": "x"}"#, "whole number"),
            (#"{"player": "Ann Lee", "points": 5, "reason": "  "}"#, "reason"),
            (#"{"player": "Nobody", "points": 5, "reason": "x"}"#, "no player"),
            (#"{"player": "Ann Lee", "team": 1, "points": 5, "reason": "x"}"#, "one"),
            (#"{"player": "Ann Lee", "hunt": "no-such", "points": 5, "reason": "x"}"#, "no hunt"),
        ] {
            let refused = try await server.call("POST", "/v1/adjustments", json: body, token: mo)
            #expect(refused.status == 422 && refused.body.contains(words), "\(body): \(refused.body)")
        }
        let made = try await server.call("POST", "/v1/adjustments", json: best, token: mo)
        #expect(made.status == 201, "\(made.body)")
        let adjustment = try json(made.body)
        #expect(adjustment["by"]?.string == "Mo Kent" && adjustment["points"]?.int == 25)
        let penalty = #"{"player": "Bo Diaz", "points": -10, "reason": "Climbed the fence"}"#
        #expect(try await server.call("POST", "/v1/adjustments", json: penalty, token: mo).status == 201)

        // The hunt's board has Ann's bonus; Bo's penalty (no hunt) is on the all-time board only.
        let hunt1 = try await points("/v1/leaderboard?hunt=springs-preserve")
        #expect(
            hunt1["Ann Lee"] == (hunt0["Ann Lee"] ?? 0) + 25 && hunt1["Bo Diaz"] == hunt0["Bo Diaz"],
            "\(hunt1)")
        let all1 = try await points("/v1/leaderboard")
        #expect(
            all1["Ann Lee"] == (all0["Ann Lee"] ?? 0) + 25 && all1["Bo Diaz"] == (all0["Bo Diaz"] ?? 0) - 10,
            "\(all1)")
        let profile = try json(try await server.call("GET", "/v1/players/Ann%20Lee").body)
        #expect(profile["points"]?.int == all1["Ann Lee"], "\(profile)")
        #expect(
            profile["adjustments"]?.array.first?["reason"]?.string == "Best photo of the day", "\(profile)")
        let mine = try json(try await server.call("GET", "/v1/me", token: bo).body)
        #expect(
            mine["adjustments"]?.array.first?["points"]?.int == -10 && mine["points"]?.int == all1["Bo Diaz"],
            "\(mine)")
        let cli = try json(try workspace.vsh(["profile", "Bo Diaz", "--json"]).stdout)
        #expect(cli["points"]?.int == all1["Bo Diaz"], "\(cli)")

        let csv = try await server.call("GET", "/v1/hunts/springs-preserve/results.csv", token: mo)
        #expect(csv.body.contains(",25\r\n"), "\(csv.body)")
        let listed = try await server.call("GET", "/v1/adjustments?hunt=springs-preserve", token: mo)
        guard case .array(let items) = try json(listed.body) else { throw FixtureError(listed.body) }
        #expect(items.count == 1 && items.first?["player"]?.string == "Ann Lee", "\(listed.body)")
        #expect(
            try await server.call("GET", "/v1/adjustments?hunt=springs-preserve", token: ann).status == 403)
    }

    /// A JPEG's width and height from its first start-of-frame segment.
    static func jpegSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 9 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xC3).contains(marker) {
                return (
                    Int(bytes[i + 7]) << 8 | Int(bytes[i + 8]), Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                )
            }
            i += 2 + length
        }
        return nil
    }

    /// The moderators' live feed: newest first with a thumbnail, told of each check-in on the event
    /// stream; a featured photo is on the hunt's public list and served to anyone while it counts,
    /// and off it once revoked; players get 403.
    @Test(arguments: [false, true]) func theLiveFeedAndFeaturedPhotos(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "moderator"]).status == 0)
        let stream = try RawConnection(port: server.port)
        defer { stream.close() }
        try stream.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
        let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg")))
        let (body, type) = ServeRobustnessTests.multipart(photo: photo)
        let sent = try await server.call(
            "POST", "/v1/checkins", token: ann, headers: ["Content-Type": type], data: body)
        let id = try #require(try json(sent.body)["id"]?.int, "\(sent.body)")
        #expect(try json(sent.body)["verdict"]?.string == "accepted", "\(sent.body)")
        let heard = stream.readUntilClosed(seconds: 2).text
        #expect(heard.contains("event: checkin\ndata: \(id)\n"), "\(heard)")

        #expect(try await server.call("GET", "/v1/feed", token: ann).status == 403)
        let feed = try await server.call("GET", "/v1/feed?hunt=strip-classics", token: mo)
        guard case .array(let items) = try json(feed.body) else { throw FixtureError(feed.body) }
        #expect(items.first?["id"]?.int == id && items.first?["state"]?.string == "accepted", "\(feed.body)")
        #expect(items.first?["featured"] == .bool(false) && items.first?["player"]?.string == "Ann Lee")
        let thumbnail = try #require(items.first?["thumbnail_url"]?.string)
        var request = URLRequest(url: URL(string: server.base + thumbnail)!)
        request.setValue("Bearer \(mo)", forHTTPHeaderField: "Authorization")
        let (small, _) = try await URLSession.shared.data(for: request)
        let size = Self.jpegSize([UInt8](small))
        #expect(size?.width == 160 && size?.height == 160, "\(String(describing: size))")

        // Not featured: a stranger's request is refused; featured: anyone who may see the hunt.
        #expect(try await server.call("GET", "/v1/checkins/\(id)/photo").status == 401)
        #expect(
            try await server.call(
                "PUT", "/v1/checkins/\(id)/featured", json: #"{"featured": true}"#, token: ann
            ).status
                == 403)
        let featured = try await server.call(
            "PUT", "/v1/checkins/\(id)/featured", json: #"{"featured": true}"#, token: mo)
        #expect(featured.status == 200, "\(featured.body)")
        let list = try await server.call("GET", "/v1/hunts/strip-classics/featured")
        #expect(
            try json(list.body).array.first?["photo_url"]?.string == "/v1/checkins/\(id)/photo",
            "\(list.body)")
        let open = try await server.call("GET", "/v1/checkins/\(id)/photo")
        #expect(open.status == 200 && open.headers["content-type"] == "image/jpeg")

        // Revoked: off the projector, and private again.
        let revoked = try await server.call(
            "POST", "/v1/reviews/\(id)/revoke", json: #"{"reason": "Someone else's photo"}"#, token: mo)
        #expect(revoked.status == 200, "\(revoked.body)")
        #expect(try json(revoked.body)["state"]?.string == "revoked")
        #expect(try await server.call("GET", "/v1/hunts/strip-classics/featured").body == "[]")
        #expect(try await server.call("GET", "/v1/checkins/\(id)/photo").status == 401)
        #expect(
            try await server.call(
                "POST", "/v1/reviews/\(id)/revoke", json: #"{"reason": "again"}"#, token: mo
            ).status
                == 409)
    }

    /// An erased account (`DELETE /v1/me` with the password): the name, e-mail address, picture,
    /// sessions and photos go; its points stay on the board under "Erased player #ID", and `vsh
    /// doctor` finds the league whole. An organiser renames a player (checked as at sign-up).
    @Test(arguments: [false, true]) func anErasedAccountLeavesTheBoardsConsistent(postGIS: Bool) async throws
    {
        let workspace = try Workspace.on(postGIS: postGIS)
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg")))
        #expect(
            try await server.call(
                "PUT", "/v1/me/avatar", token: ann, headers: ["Content-Type": "image/jpeg"], data: photo
            )
            .status == 204)
        let (body, type) = ServeRobustnessTests.multipart(photo: photo)
        let sent = try await server.call(
            "POST", "/v1/checkins", token: ann, headers: ["Content-Type": type], data: body)
        let id = try #require(try json(sent.body)["id"]?.int, "\(sent.body)")
        #expect(try await server.call("GET", "/v1/checkins/\(id)/photo", token: mo).status == 200)
        let before = try json(try await server.call("GET", "/v1/leaderboard").body)
        let points = try #require(before.array.first { $0["player"]?.string == "Ann Lee" }?["points"]?.int)

        let wrong = try await server.call("DELETE", "/v1/me", json: #"{"password": "not it"}"#, token: ann)
        #expect(wrong.status == 403, "\(wrong.body)")
        #expect(try await server.call("GET", "/v1/players/Ann%20Lee").status == 200)
        let erased = try await server.call(
            "DELETE", "/v1/me", json: #"{"password": "tumbling dice"}"#, token: ann)
        #expect(erased.status == 204, "\(erased.body) \(server.log.suffix(1500))")

        #expect(try await server.call("GET", "/v1/me", token: ann).status == 401)
        #expect(
            try await server.call(
                "POST", "/v1/sessions", json: #"{"username": "Ann Lee", "password": "tumbling dice"}"#
            )
            .status == 401)
        #expect(try await server.call("GET", "/v1/players/Ann%20Lee").status == 404)
        let board = try await server.call("GET", "/v1/leaderboard")
        #expect(!board.body.contains("Ann Lee"), "\(board.body)")
        let row = try json(board.body).array.first {
            $0["player"]?.string?.hasPrefix("Erased player #") == true
        }
        #expect(row?["points"]?.int == points, "\(board.body)")
        #expect(try await server.call("GET", "/v1/checkins/\(id)/photo", token: mo).status == 404)
        let name = try #require(row?["player"]?.string).addingPercentEncoding(
            withAllowedCharacters: .alphanumerics)!
        #expect(try await server.call("GET", "/v1/players/\(name)/avatar").status == 404)
        #expect(try await server.call("GET", "/v1/players/\(name)").body.contains("ann@example.org") == false)
        let doctor = try workspace.vsh(["doctor", "--json"])
        #expect(
            doctor.status == 0 && doctor.stdout.contains(#""missing_photos":0"#),
            "\(doctor.stdout)\(doctor.stderr)")
        if !postGIS {
            let files = try FileManager.default.subpathsOfDirectory(atPath: workspace.root.path).filter {
                $0.hasSuffix(".jpg") && !$0.contains("Fixtures")
            }
            #expect(files.isEmpty, "photos left: \(files)")
        }

        // Renaming: checked as at sign-up; the board follows.
        for (newName, status) in [("Mo Kent", 409), ("B@d", 422), ("Bea Diaz", 200)] {
            let renamed = try await server.call(
                "PATCH", "/v1/players/Bo%20Diaz", json: #"{"username": "\#(newName)"}"#, token: mo)
            #expect(renamed.status == status, "\(newName): \(renamed.body)")
        }
        #expect(
            try await server.call("PATCH", "/v1/players/Bea%20Diaz", json: #"{"username": "X Y"}"#, token: bo)
                .status == 403)
        #expect(try await server.call("GET", "/v1/players/Bea%20Diaz").status == 200)
        #expect(try await server.call("GET", "/v1/me", token: bo).body.contains("Bea Diaz"))
    }

    /// `photos.zip`: every accepted photo of the hunt, drawn anew without metadata, with a manifest,
    /// read back by Python's `zipfile` and `csv`; a pending photo is not in it; organisers only.
    @Test(arguments: [false, true]) func thePhotosAreAZipForTheOrganiser(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        var accepted: [Int] = []
        for (name, file) in [
            ("Ann Lee", "sign-inside.jpg"), ("Bo Diaz", "sign-vertex.jpg"), ("Cy Reyes", "poor-accuracy.jpg"),
        ] {
            let token = try await server.register(name, email: "\(name.prefix(2).lowercased())@example.org")
            let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath(file)))
            let (body, type) = ServeRobustnessTests.multipart(photo: photo)
            let sent = try json(
                try await server.call(
                    "POST", "/v1/checkins", token: token, headers: ["Content-Type": type], data: body
                ).body)
            if sent["verdict"]?.string == "accepted", let id = sent["id"]?.int { accepted.append(id) }
        }
        #expect(accepted.count == 2, "\(accepted)")
        #expect(try await server.call("GET", "/v1/hunts/strip-classics/photos.zip").status == 401)
        var request = URLRequest(url: URL(string: server.base + "/v1/hunts/strip-classics/photos.zip")!)
        request.setValue("Bearer \(mo)", forHTTPHeaderField: "Authorization")
        let (zip, response) = try await URLSession.shared.data(for: request)
        #expect(
            (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "application/zip")
        let file = workspace.root.appendingPathComponent("photos.zip")
        try zip.write(to: file)
        let read = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import csv, io, json, sys, zipfile
                z = zipfile.ZipFile(sys.argv[1])
                assert z.testzip() is None
                rows = list(csv.DictReader(io.TextIOWrapper(z.open('manifest.csv'), encoding='utf-8', newline='')))
                photos = {r['file']: z.read(r['file']) for r in rows}
                print(json.dumps({'names': z.namelist(), 'checkins': [int(r['checkin']) for r in rows],
                  'players': [r['player'] for r in rows],
                  'times': [[r['received_at'], r['received_local']] for r in rows],
                  'jpeg': all(b[:2] == b'\\xff\\xd8' for b in photos.values()),
                  'exif': any(b'Exif' in b[:4096] for b in photos.values())}))
                """,
                file.path,
            ])
        let answer = try json(read.stdout)
        #expect(read.status == 0, "\(read.stderr)")
        #expect(answer["checkins"] == .array(accepted.map { .int($0) }), "\(read.stdout)")
        #expect(answer["players"] == .array([.string("Ann Lee"), .string("Bo Diaz")]))
        // Each photo's moment in UTC, and on the hunt's clock (Las Vegas) for the spreadsheet.
        let vegas = DateFormatter()
        vegas.locale = Locale(identifier: "en_US_POSIX")
        vegas.timeZone = TimeZone(identifier: "America/Los_Angeles")
        vegas.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let times = answer["times"]?.array ?? []
        #expect(times.count == 2)
        for pair in times {
            let utc = pair.array.first?.string.flatMap(RFC3339.parse)
            #expect(utc.map(vegas.string(from:)) == pair.array.last?.string, "\(pair)")
        }
        #expect(
            answer["names"]?.array.count == 3 && answer["jpeg"] == .bool(true)
                && answer["exif"] == .bool(false))
    }

    /// A banned player: their token stops working at once, signing in answers as a wrong password
    /// does, they are off the boards (all time and a hunt's); lifting the ban puts them back.
    /// Organisers only; an organiser cannot ban themselves.
    @Test(arguments: [false, true]) func aBannedPlayerIsOutUntilTheBanIsLifted(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write(
            "springs-preserve.geojson",
            OrganiserAPITests.hunt("springs-preserve", stops: [OrganiserAPITests.springs, Self.pond]))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let fix = RFC3339.format(Date().addingTimeInterval(-10))
        let visit = try await TwoInstanceTests.checkIn(
            server.base, token: bo, session: .shared,
            fields: [("lat", "36.1719"), ("lon", "-115.1893"), ("accuracy_m", "8"), ("fix_time", fix)])
        #expect(visit.answer?["verdict"]?.string == "accepted")
        for board in ["/v1/leaderboard", "/v1/leaderboard?hunt=springs-preserve"] {
            #expect(try await server.call("GET", board).body.contains("Bo Diaz"))
        }

        let ban = #"{"banned": true}"#
        #expect(try await server.call("PATCH", "/v1/players/Bo%20Diaz", json: ban, token: bo).status == 403)
        #expect(try await server.call("PATCH", "/v1/players/Mo%20Kent", json: ban, token: mo).status == 422)
        #expect(try await server.call("PATCH", "/v1/players/Nobody", json: ban, token: mo).status == 404)
        let banned = try await server.call("PATCH", "/v1/players/Bo%20Diaz", json: ban, token: mo)
        #expect(banned.status == 200, "\(banned.body)")

        #expect(try await server.call("GET", "/v1/me", token: bo).status == 401)
        let signIn = try await server.call(
            "POST", "/v1/sessions", json: #"{"username": "Bo Diaz", "password": "tumbling dice"}"#)
        let wrong = try await server.call(
            "POST", "/v1/sessions", json: #"{"username": "Bo Diaz", "password": "not the password"}"#)
        #expect(signIn.status == 401 && signIn.status == wrong.status, "\(signIn.body)")
        #expect(try json(signIn.body)["detail"] == (try json(wrong.body)["detail"]))
        for board in ["/v1/leaderboard", "/v1/leaderboard?hunt=springs-preserve"] {
            #expect(!(try await server.call("GET", board).body.contains("Bo Diaz")), "\(board)")
        }

        let lifted = try await server.call(
            "PATCH", "/v1/players/Bo%20Diaz", json: #"{"banned": false}"#, token: mo)
        #expect(lifted.status == 200, "\(lifted.body)")
        #expect(try await server.call("GET", "/v1/leaderboard").body.contains("Bo Diaz"))
        let again = try await server.call(
            "POST", "/v1/sessions", json: #"{"username": "Bo Diaz", "password": "tumbling dice"}"#)
        #expect(again.status == 201 || again.status == 200, "\(again.body)")
    }

    /// Players' last positions on the organiser's map, for a hunt that shares them: one a player
    /// (the last replaces the one before), organisers only, never for a hunt that does not share
    /// them, checked and rate-limited, without banned or erased players, not in the server's log,
    /// and gone once the hunt has closed.
    @Test(arguments: [false, true]) func playersLastPositionsOnTheOrganisersMap(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        let sharing = OrganiserAPITests.hunt(
            "springs-preserve", stops: [OrganiserAPITests.springs, Self.pond]
        )
        .replacingOccurrences(
            of: #""tolerance_m": 10}"#, with: #""tolerance_m": 10, "share_positions": true}"#)
        #expect(sharing.contains("share_positions"))
        try workspace.write("springs-preserve.geojson", sharing)
        try workspace.write(
            "botanical.geojson", OrganiserAPITests.hunt("botanical", stops: [OrganiserAPITests.gardens]))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let cy = try await server.register("Cy Moss", email: "cy@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        // The hunt file says so to the players' pages.
        let file = try json(try await server.call("GET", "/v1/hunts/springs-preserve").body)
        #expect(file["hunt"]?["share_positions"] == .bool(true))

        func send(_ token: String, _ lat: String, _ lon: String, hunt: String = "springs-preserve")
            async throws
            -> (status: Int, body: String)
        {
            let answer = try await server.call(
                "PUT", "/v1/hunts/\(hunt)/position",
                json: #"{"lat": \#(lat), "lon": \#(lon), "accuracy_m": 12.5}"#, token: token)
            return (answer.status, answer.body)
        }
        #expect(try await send(ann, "36.1719377", "-115.1893411").status == 204)
        #expect(try await send(bo, "36.1700001", "-115.1900001").status == 204)
        #expect(try await send(bo, "36.1721552", "-115.1886633").status == 204)
        #expect(try await send(cy, "36.1718", "-115.1890").status == 204)
        // Refused: a hunt that does not share positions, bad numbers, no token, an unknown hunt.
        let notShared = try await send(ann, "36.1701", "-115.1906", hunt: "botanical")
        #expect(notShared.status == 409 && notShared.body.contains("does not share"), "\(notShared.body)")
        let badLat = try await send(ann, "91", "-115.1893")
        #expect(badLat.status == 422 && badLat.body.contains("lat"), "\(badLat.body)")
        #expect(try await send(ann, #""north""#, "-115.1893").status == 422)
        #expect(
            try await server.call(
                "PUT", "/v1/hunts/springs-preserve/position", json: #"{"lat": 36.17}"#, token: ann
            )
            .status == 422)
        #expect(
            try await server.call(
                "PUT", "/v1/hunts/springs-preserve/position",
                json: #"{"lat": 36.17, "lon": -115.18, "accuracy_m": 5}"#
            ).status == 401)
        #expect(try await send(ann, "36.17", "-115.18", hunt: "no-such-hunt").status == 404)

        // The organiser's map: each player once, newest first, Bo where he was last.
        #expect(
            try await server.call("GET", "/v1/hunts/springs-preserve/positions", token: ann).status == 403)
        #expect(try await server.call("GET", "/v1/hunts/no-such-hunt/positions", token: mo).status == 404)
        func positions() async throws -> [String: (lat: Double, lon: Double)] {
            let answer = try await server.call("GET", "/v1/hunts/springs-preserve/positions", token: mo)
            #expect(answer.status == 200, "\(answer.body)")
            var found: [String: (lat: Double, lon: Double)] = [:]
            for row in try json(answer.body)["positions"]?.array ?? [] {
                guard let name = row["player"]?.string, let lat = row["lat"]?.double,
                    let lon = row["lon"]?.double
                else { continue }
                #expect(found[name] == nil, "\(name) twice")
                #expect(row["accuracy_m"]?.double == 12.5 && row["at"]?.string.flatMap(RFC3339.parse) != nil)
                found[name] = (lat, lon)
            }
            return found
        }
        let map = try await positions()
        #expect(Set(map.keys) == ["Ann Lee", "Bo Diaz", "Cy Moss"], "\(map)")
        #expect(map["Bo Diaz"]?.lat == 36.1721552 && map["Bo Diaz"]?.lon == -115.1886633)
        #expect(map["Ann Lee"]?.lat == 36.1719377)

        // A player sends a few a minute at most (the page sends one every 30 s): a burst of 6, then
        // one every 10 s, so sends in a row meet 429 soon however slowly the machine answers.
        var statuses: [Int] = []
        while statuses.count < 40 && statuses.last != 429 {
            statuses.append(try await send(cy, "36.1718", "-115.1890").status)
        }
        #expect(statuses.first == 204 && statuses.last == 429, "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 204 || $0 == 429 }, "\(statuses)")

        // Banned and erased players are off the map; positions are not in the server's log.
        #expect(
            try await server.call("PATCH", "/v1/players/Cy%20Moss", json: #"{"banned": true}"#, token: mo)
                .status
                == 200)
        #expect(
            try await server.call("DELETE", "/v1/me", json: #"{"password": "tumbling dice"}"#, token: ann)
                .status
                == 204)
        #expect(Set(try await positions().keys) == ["Bo Diaz"])
        #expect(!server.log.contains("36.1719377") && !server.log.contains("115.1886633"), "\(server.log)")

        // Closed: the hunt ends now (the organiser publishes the window), no position is taken and
        // those kept are deleted.
        let closed = sharing.replacingOccurrences(
            of: #""tolerance_m": 10,"#, with: #""tolerance_m": 10, "ends_at": "2020-01-01T00:00:00Z","#)
        #expect(
            try await server.call("PUT", "/v1/hunts/springs-preserve/draft", json: closed, token: mo).status
                == 200)
        let published = try await server.call("POST", "/v1/hunts/springs-preserve/publish", token: mo)
        #expect(published.status == 200, "\(published.body)")
        let late = try await send(bo, "36.1721", "-115.1886")
        #expect(late.status == 409 && late.body.contains("not open"), "\(late.body)")
        let after = try json(
            try await server.call("GET", "/v1/hunts/springs-preserve/positions", token: mo).body)
        #expect(after["state"]?.string == "closed" && after["positions"]?.array.isEmpty == true, "\(after)")
        if !postGIS {
            let count = try TestSupport.run(
                "/usr/bin/env",
                [
                    "python3", "-c",
                    "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM positions').fetchone()[0])",
                    workspace.db,
                ])
            #expect(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(count.stdout)")
        }
    }

    /// A server's resident memory (KiB), from /proc.
    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// A 2,000-photo `photos.zip` (about 190 MB) streams while the server's memory stays flat: the
    /// league holds 2,000 accepted check-ins, each with a photo of its own (made by
    /// Tests/Scripts/many_photos.py, and copied to PostgreSQL by `vsh db copy` for PostGIS); a client
    /// reads the archive as it comes while the server's resident memory is sampled after every MiB;
    /// `zipfile` finds every photo, a JPEG without Exif, and the manifest's 2,000 rows.
    @Test(arguments: [false, true]) func aLargePhotoExportStreamsInFlatMemory(postGIS: Bool) async throws {
        let origin = try Workspace()
        #expect(try origin.vsh(["player", "add", "Mo Kent"]).status == 0)
        let scripts = TestSupport.packageRoot.appendingPathComponent("Tests/Scripts")
        let made = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", scripts.appendingPathComponent("many_photos.py").path, origin.db, "strip-classics",
                "2000",
            ])
        #expect(made.status == 0, "\(made.stderr)")
        var workspace = origin
        if postGIS {
            workspace = try Workspace.on(postGIS: true)
            let copied = try TestSupport.run(
                "vsh", ["db", "copy", "--from", origin.db, "--to", workspace.db])
            #expect(copied.status == 0, "\(copied.stderr)")
        }
        #expect(
            try TestSupport.run(
                "vsh", ["player", "password", "Mo Kent", "--db", workspace.db, "--hunts", workspace.hunts],
                stdin: Data("a long password\n".utf8)
            ).status == 0)
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let session = try await server.call(
            "POST", "/v1/sessions", json: #"{"username": "Mo Kent", "password": "a long password"}"#)
        let token = try #require(try json(session.body)["token"]?.string, "\(session.body)")
        let pid = server.process.processIdentifier
        let before = try #require(Self.residentKiB(pid))

        let streamed = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3", scripts.appendingPathComponent("stream_zip.py").path,
                "\(server.base)/v1/hunts/strip-classics/photos.zip", token, String(pid),
                workspace.root.appendingPathComponent("photos.zip").path,
            ])
        #expect(streamed.status == 0, "\(streamed.stderr)")
        let answer = try json(streamed.stdout)
        #expect(
            answer["photos"]?.int == 2000 && answer["entries"]?.int == 2001, "\(answer["entries"] ?? .null)")
        #expect(answer["manifest_rows"]?.int == 2000)
        #expect(answer["bad"] == .null && answer["not_jpeg"]?.int == 0 && answer["with_exif"]?.int == 0)
        // The archive is several times the memory allowed to grow, so one built in memory (or a
        // photo kept after it is sent) could not stay under it.
        let bytes = try #require(answer["bytes"]?.int)
        let allowedKiB = 48 * 1024
        #expect(bytes > 150 << 20, "\(bytes) bytes")
        let samples = answer["samples"]?.array.compactMap { $0.array.last?.int } ?? []
        #expect(samples.count > 150, "\(samples.count) samples")
        let peak = try #require(samples.max())
        #expect(peak - before <= allowedKiB, "resident \(before) KiB before, \(peak) KiB at the most")
        print(
            "photos.zip of 2,000 photos (\(postGIS ? "PostGIS" : "SpatiaLite")): \(bytes) bytes; resident \(before) KiB before, at most \(peak) KiB while streaming"
        )
    }
}
