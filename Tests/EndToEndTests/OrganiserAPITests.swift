import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The organisers' routes on a real `vsh serve`: drafts refused with every problem and its JSON
/// Pointer, published as revisions players see at once, the revision history, 403 for players
/// and moderators; and files and the console side by side (`vsh sync` refuses a stale folder,
/// `--force` publishes it, an export syncs back unchanged).
@Suite struct OrganiserAPITests {
    /// A square stop of about 60 m a side around a position.
    static func stop(_ id: String, _ name: String, lat: Double, lon: Double, points: String = "50") -> String
    {
        let (dy, dx) = (0.0003, 0.00035)
        let ring = [(-dx, -dy), (dx, -dy), (dx, dy), (-dx, dy), (-dx, -dy)].map {
            "[\(lon + $0.0), \(lat + $0.1)]"
        }
        return """
            {"type": "Feature", "id": "\(id)", "properties": {"name": "\(name)", "points": \(points)},
             "geometry": {"type": "Polygon", "coordinates": [[\(ring.joined(separator: ", "))]]}}
            """
    }

    /// A hunt file with these stops.
    static func hunt(_ id: String, name: String = "Springs Preserve loop", stops: [String]) -> String {
        """
        {"type": "FeatureCollection",
         "hunt": {"id": "\(id)", "name": "\(name)", "description": "Desert gardens and the old springs.",
                  "difficulty": "easy", "bonus_points": 50, "ordered": false, "timezone": "America/Los_Angeles",
                  "max_accuracy_m": 50, "max_photo_age_s": 86400, "tolerance_m": 10},
         "features": [\(stops.joined(separator: ",\n"))]}
        """
    }

    static let gardens = stop("preserve-gardens", "Botanical garden", lat: 36.1701, lon: -115.1906)
    static let springs = stop("preserve-springs", "The old springs", lat: 36.1719, lon: -115.1893)
    /// Overlaps `springs`.
    static let cienega = stop("preserve-cienega", "Cienega", lat: 36.1721, lon: -115.1895)

    /// The `errors` of a 422, as "pointer: detail".
    static func errors(_ body: String) throws -> [String: String] {
        guard case .array(let errors)? = try json(body)["errors"] else { return [:] }
        var found: [String: String] = [:]
        for error in errors {
            if let pointer = error["pointer"]?.string, let detail = error["detail"]?.string {
                found[pointer] = detail
            }
        }
        return found
    }

    @Test func organisersDraftPublishAndSeeRevisions() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let moe = try await server.register("Moe", email: "moe@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Moe", "moderator"]).status == 0)
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let good = Self.hunt("springs-preserve", stops: [Self.gardens, Self.springs])

        // Players and moderators may not; nor may anyone without a token.
        for token in [ann, moe] {
            #expect(try await server.call("POST", "/v1/hunts", json: good, token: token).status == 403)
            #expect(
                try await server.call("GET", "/v1/hunts/strip-classics/draft", token: token).status == 403)
            #expect(try await server.call("GET", "/v1/drafts", token: token).status == 403)
        }
        #expect(try await server.call("POST", "/v1/hunts", json: good).status == 401)

        // Every problem, each with its pointer; nothing saved.
        let bad = Self.hunt(
            "springs-preserve", name: "",
            stops: [
                // A bow tie: its edges cross.
                """
                {"type": "Feature", "id": "preserve-gardens", "properties": {"name": "Botanical garden", "points": 50},
                 "geometry": {"type": "Polygon", "coordinates": [[[-115.191, 36.1698], [-115.190, 36.1704],
                   [-115.190, 36.1698], [-115.191, 36.1704], [-115.191, 36.1698]]]}}
                """,
                Self.stop(
                    "preserve-springs", "The old springs", lat: 36.1719, lon: -115.1893, points: "\"many\""),
            ])
        let refused = try await server.call("POST", "/v1/hunts", json: bad, token: mo)
        #expect(refused.status == 422, "\(refused.body)")
        #expect(refused.headers["content-type"] == "application/problem+json")
        let problems = try Self.errors(refused.body)
        #expect(problems["/hunt/name"]?.contains("empty") == true, "\(problems)")
        #expect(problems["/features/1/properties/points"]?.contains("whole number") == true, "\(problems)")
        #expect(problems["/features/0/geometry"] != nil, "\(problems)")
        #expect(problems.count == 3, "\(problems)")
        // A stop id another hunt uses.
        let taken = Self.hunt(
            "springs-preserve",
            stops: [Self.gardens, Self.stop("fremont-street-experience", "Taken", lat: 36.17, lon: -115.14)])
        let clash = try await server.call("POST", "/v1/hunts", json: taken, token: mo)
        #expect(clash.status == 422)
        #expect(
            try Self.errors(clash.body)["/features/1/id"]?.contains("downtown-fremont") == true,
            "\(clash.body)")
        #expect(try await server.call("GET", "/v1/hunts/springs-preserve/draft", token: mo).status == 404)

        // A draft, with a warning where it belongs; players do not see it.
        let overlapping = Self.hunt("springs-preserve", stops: [Self.gardens, Self.springs, Self.cienega])
        let created = try await server.call("POST", "/v1/hunts", json: overlapping, token: mo)
        #expect(created.status == 201, "\(created.body)")
        guard case .array(let warnings)? = try json(created.body)["warnings"] else {
            Issue.record("no warnings: \(created.body)")
            return
        }
        #expect(
            warnings.contains {
                $0["pointer"]?.string == "/features/2" && $0["detail"]?.string?.contains("overlap") == true
            })
        #expect(try await server.call("POST", "/v1/hunts", json: good, token: mo).status == 409)
        #expect(try await server.call("GET", "/v1/hunts/springs-preserve").status == 404)
        #expect(
            try await server.call("GET", "/v1/drafts", token: mo).body.contains(#""hunt":"springs-preserve""#)
        )

        // The draft replaced, read back, published: players see it at once.
        let saved = try await server.call("PUT", "/v1/hunts/springs-preserve/draft", json: good, token: mo)
        #expect(saved.status == 200, "\(saved.body)")
        let draft = try await server.call("GET", "/v1/hunts/springs-preserve/draft", token: mo)
        #expect(draft.headers["x-draft"] == "saved")
        #expect(draft.body == good)
        let published = try await server.call("POST", "/v1/hunts/springs-preserve/publish", token: mo)
        #expect(published.status == 200, "\(published.body)")
        #expect(try json(published.body)["revision"]?.int == 1)
        let feed = try await server.call("GET", "/v1/hunts")
        #expect(feed.body.contains(#""id":"springs-preserve""#))
        #expect(try await server.call("GET", "/v1/hunts/springs-preserve").status == 200)
        let revisions = try json(
            try await server.call("GET", "/v1/hunts/springs-preserve/revisions", token: mo).body)
        #expect(revisions.array.first?["revision"]?.int == 1)
        #expect(revisions.array.first?["by"]?.string == "Mo Kent")
        #expect(revisions.array.first?["source"]?.string == "console")
        let start = try await server.call("GET", "/v1/hunts/springs-preserve/draft", token: mo)
        #expect(start.headers["x-draft"] == "published")
        #expect(start.body == good)
        #expect(try await server.call("POST", "/v1/hunts/springs-preserve/publish", token: mo).status == 409)
        #expect(try await server.call("DELETE", "/v1/hunts/springs-preserve/draft", token: mo).status == 404)

        // A draft of another hunt must keep its id.
        let wrongID = try await server.call("PUT", "/v1/hunts/strip-classics/draft", json: good, token: mo)
        #expect(wrongID.status == 422)
        #expect(try Self.errors(wrongID.body)["/hunt/id"] != nil, "\(wrongID.body)")

        // A player checks in at the new stop and it counts.
        let checkIn = try await TwoInstanceTests.checkIn(
            server.base, token: ann, session: .shared,
            fields: [
                ("lat", "36.1719"), ("lon", "-115.1893"), ("accuracy_m", "8"),
                ("fix_time", RFC3339.format(Date())),
            ])
        #expect(
            checkIn.answer?["stop"]?.string == "preserve-springs", "\(String(describing: checkIn.answer))")

        // The check-in keeps the revision it was judged under.
        let recorded = try TestSupport.run(
            "/usr/bin/env",
            [
                "python3",
                "-c",
                "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute(\"SELECT hunt_id, hunt_revision FROM checkins\").fetchall())",
                workspace.db,
            ])
        #expect(
            recorded.stdout.contains("[('springs-preserve', 1)]"), "\(recorded.stdout) \(recorded.stderr)")

        // Pictures: a camera photo with GPS becomes the cover and a stop's picture, kept without
        // metadata; players see them once published.
        let photo = try Data(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        let jpeg = ["Content-Type": "image/jpeg"]
        #expect(
            try await server.call(
                "PUT", "/v1/hunts/springs-preserve/draft/image", token: ann, headers: jpeg, data: photo
            )
            .status == 403)
        #expect(
            try await server.call(
                "PUT", "/v1/hunts/springs-preserve/draft/stops/nowhere/image", token: mo, headers: jpeg,
                data: photo
            ).status == 404)
        #expect(
            try await server.call(
                "PUT", "/v1/hunts/springs-preserve/draft/image", token: mo, headers: jpeg,
                data: Data("not a photo".utf8)
            ).status == 415)
        let cover = try await server.call(
            "PUT", "/v1/hunts/springs-preserve/draft/image", token: mo, headers: jpeg, data: photo)
        #expect(cover.status == 200, "\(cover.body)")
        let coverName = try #require(try json(cover.body)["image"]?.string)
        #expect(coverName.wholeMatch(of: #/pictures/[0-9a-f]{64}\.jpg/#) != nil, "\(coverName)")
        let stopPicture = try await server.call(
            "PUT", "/v1/hunts/springs-preserve/draft/stops/preserve-springs/image", token: mo, headers: jpeg,
            data: photo)
        #expect(stopPicture.status == 200, "\(stopPicture.body)")
        let withPictures = try json(
            try await server.call("GET", "/v1/hunts/springs-preserve/draft", token: mo).body)
        #expect(withPictures["hunt"]?["image"]?.string == coverName)
        #expect(try await server.call("GET", "/v1/hunts/springs-preserve/image").status == 404)
        #expect(try await server.call("POST", "/v1/hunts/springs-preserve/publish", token: mo).status == 200)
        for path in ["/v1/hunts/springs-preserve/image", "/v1/stops/preserve-springs/image"] {
            let (bytes, response) = try await URLSession.shared.data(from: URL(string: server.base + path)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(path)")
            let file = workspace.root.appendingPathComponent("served.jpg")
            try bytes.write(to: file)
            let tags = try TestSupport.run("/usr/bin/env", ["exiftool", "-json", "-a", "-G1", file.path])
            #expect(tags.stdout.contains("\"File:FileType\": \"JPEG\""), "\(tags.stdout)")
            #expect(!tags.stdout.contains("GPS"), "\(tags.stdout)")
            #expect(!tags.stdout.contains("[EXIF"), "\(tags.stdout)")
        }

        // The hunts folder lacks the console's hunt: a sync keeps it.
        #expect(try workspace.vsh(["sync"]).status == 0)
        #expect(try workspace.vsh(["hunts"]).stdout.contains("springs-preserve"))

        // A console edit of a hunt the folder has: the stale folder is refused, naming the revision.
        let strip = try await server.call("GET", "/v1/hunts/strip-classics/draft", token: mo)
        let renamed = strip.body.replacingOccurrences(
            of: "\"name\": \"Strip Classics\"", with: "\"name\": \"The Strip\"")
        #expect(renamed != strip.body)
        #expect(
            try await server.call("PUT", "/v1/hunts/strip-classics/draft", json: renamed, token: mo).status
                == 200)
        #expect(try await server.call("POST", "/v1/hunts/strip-classics/publish", token: mo).status == 200)
        let stale = try workspace.vsh(["sync"])
        #expect(stale.status == 65)
        #expect(
            stale.stderr.contains(
                "hunt \"strip-classics\" has revision 2, published from the console by Mo Kent"),
            "\(stale.stderr)")
        #expect(stale.stderr.contains("vsh sync --force"))
        // A second server on the stale folder refuses to start, by the same rule.
        let refusedStart = try TestSupport.run(
            "/usr/bin/env",
            [
                "timeout", "60", TestSupport.productsDirectory.appendingPathComponent("vsh").path, "serve",
                "--port", "0",
                "--db", workspace.db, "--hunts", workspace.hunts,
            ])
        #expect(refusedStart.status == 65, "\(refusedStart.stdout) \(refusedStart.stderr)")
        #expect(refusedStart.stderr.contains("revision 2"), "\(refusedStart.stderr)")
        #expect(try workspace.vsh(["hunt", "strip-classics"]).stdout.contains("The Strip"))

        // Exported, validated, synced back: no new revision.
        let exported = workspace.root.appendingPathComponent("exported").path
        #expect(try workspace.vsh(["hunts", "export", exported]).status == 0)
        #expect(try TestSupport.run("vsh-master", ["validate", exported]).status == 0)
        #expect(
            FileManager.default.fileExists(atPath: exported + "/" + coverName), "the cover picture exported")
        let back = try TestSupport.run("vsh", ["sync", "--db", workspace.db, "--hunts", exported])
        #expect(back.stdout.contains("up to date"), "\(back.stdout) \(back.stderr)")
        let history = try json(
            try await server.call("GET", "/v1/hunts/strip-classics/revisions", token: mo).body)
        #expect(history.array.first?["revision"]?.int == 2)

        // --force publishes the old file over the console's revision.
        #expect(try workspace.vsh(["sync", "--force"]).status == 0)
        #expect(try workspace.vsh(["hunt", "strip-classics"]).stdout.contains("Strip Classics"))
        let listed = try workspace.vsh(["hunts", "revisions", "strip-classics"])
        #expect(listed.status == 0)
        let rows = listed.stdout.split(separator: "\n").dropFirst().map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(rows.map { $0.first.map(String.init) } == ["3", "2", "1"], "\(listed.stdout)")
        #expect(rows.map { $0.last.map(String.init) } == ["files", "console", "files"], "\(listed.stdout)")
        #expect(listed.stdout.contains("Mo Kent"))
        // Published (now) on the hunt's clock (Las Vegas, summer time or not), as the console shows it.
        #expect(listed.stdout.contains(" PST ") || listed.stdout.contains(" PDT "), "\(listed.stdout)")
        #expect(try workspace.vsh(["hunts", "revisions", "no-such-hunt"]).status == 65)
        let after = try json(
            try await server.call("GET", "/v1/hunts/strip-classics/revisions", token: mo).body)
        #expect(after.array.first?["revision"]?.int == 3)
        #expect(after.array.first?["source"]?.string == "files")
    }

    /// Two `vsh serve` on one database (a SpatiaLite file, a PostGIS database): a hunt published
    /// on one is served by the other, and a check-in there is judged under it, without a restart.
    @Test(arguments: [false, true]) func aPublishOnOneInstanceIsServedByTheOther(postGIS: Bool) async throws {
        let a = try Workspace.on(postGIS: postGIS)
        let b = try Workspace(database: a.db)
        let first = try ServedVSH(workspace: a)
        defer { first.stop() }
        let second = try ServedVSH(workspace: b)
        defer { second.stop() }
        let mo = try await first.register("Mo Kent", email: "mo@example.org")
        let ann = try await second.register("Ann Lee", email: "ann@example.org")
        #expect(try a.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        #expect(try await second.call("GET", "/v1/hunts/springs-preserve").status == 404)
        // The feed, kept by the other instance's read cache.
        #expect(try await !second.call("GET", "/v1/hunts").body.contains("springs-preserve"))
        let good = Self.hunt("springs-preserve", stops: [Self.gardens, Self.springs])
        #expect(try await first.call("POST", "/v1/hunts", json: good, token: mo).status == 201)
        #expect(try await first.call("POST", "/v1/hunts/springs-preserve/publish", token: mo).status == 200)
        let published = ContinuousClock.now
        var served = false
        while !served, ContinuousClock.now - published < .seconds(20) {
            served = try await second.call("GET", "/v1/hunts").body.contains(#""id":"springs-preserve""#)
            if !served { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(served)
        print("the other instance served the publish after \(ContinuousClock.now - published)")
        let checkIn = try await TwoInstanceTests.checkIn(
            second.base, token: ann, session: .shared,
            fields: [
                ("lat", "36.1701"), ("lon", "-115.1906"), ("accuracy_m", "8"),
                ("fix_time", RFC3339.format(Date())),
            ])
        #expect(
            checkIn.answer?["stop"]?.string == "preserve-gardens", "\(String(describing: checkIn.answer))")
        #expect(checkIn.answer?["verdict"]?.string == "accepted", "\(String(describing: checkIn.answer))")
    }
}
