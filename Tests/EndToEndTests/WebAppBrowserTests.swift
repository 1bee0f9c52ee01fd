import Foundation
import Testing
import VSHTestSupport

/// The web app in real headless Chromium (Tests/Browser/webapp_test.py, Selenium with Debian's
/// chromium-driver, both installed by `make test-deps`) against the real binary on loopback: sign
/// up, a hunt's map, a photo check-in with the browser's fix, the live leaderboard in a second
/// window, an avatar, an offline check-in sent once on reconnection, a moderator's approval; no
/// console error, no request to another origin, no axe-core violation. Screenshots of every page
/// go to .build/screenshots/.
@Suite struct WebAppBrowserTests {
    @Test func aPlayerAndAModeratorUseTheAppInABrowser() throws {
        let workspace = try Workspace()
        // A hunt whose organiser texts are HTML: the pages must show them as text.
        try FileManager.default.copyItem(
            at: TestSupport.packageRoot.appendingPathComponent("Tests/Browser/markup.geojson"),
            to: URL(fileURLWithPath: workspace.hunts).appendingPathComponent("markup.geojson"))
        // Its image: a camera photo with GPS, which the service serves drawn anew without it.
        let images = URL(fileURLWithPath: workspace.hunts).appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"),
            to: images.appendingPathComponent("markup.jpg"))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        try browserScript(
            "webapp_test.py", checks: "browser", server: server, workspace: workspace,
            environment: Self.league(workspace))
        for page in [
            "feed-signed-out", "hunt", "stop-accepted", "leaderboard", "me", "stop-offline", "review",
        ] {
            #expect(
                FileManager.default.fileExists(
                    atPath: Self.screenshots.appendingPathComponent(page + ".png").path),
                "no screenshot of \(page)")
        }
        // The server's log names routes and statuses, never a position.
        #expect(!server.log.contains("36.08"), "a position reached the log")
    }

    /// Security round 3: the reset e-mail's link leads to a page that sets a new password
    /// (Tests/Browser/reset_test.py), followed from a real SMTP sink in Chromium.
    @Test func aForgottenPasswordIsResetInTheBrowser() async throws {
        let workspace = try Workspace()
        let mail = workspace.root.appendingPathComponent("mail")
        let sink = try SMTPSink(folder: mail)
        defer { sink.stop() }
        let server = try ServedVSH(workspace: workspace, extra: ["--smtp", "smtp://127.0.0.1:\(sink.port)"])
        defer { server.stop() }
        _ = try await server.register("Ann Lee", email: "ann@example.org")
        try browserScript(
            "reset_test.py", checks: "reset", server: server, workspace: workspace,
            environment: ["VSH_MAILDIR=\(mail.path)"])
    }

    /// A hunt that has not opened says when it opens (in its own time zone) and offers no check-in;
    /// one that has closed says so (Tests/Browser/schedule_test.py). The API carries each hunt's
    /// `state` in the feed and in the hunt's GeoJSON.
    @Test func huntsSayWhenTheyOpenAndOfferNoCheckInBefore() async throws {
        let workspace = try Workspace()
        // Strip Classics opens on Saturday 30 November 2030 at 10:00 in Las Vegas (18:00 UTC);
        // Downtown closed before the server's "now" (fixtureNow, 21 November 2026).
        for (hunt, from, to) in [
            ("strip-classics", #""starts_at": null"#, #""starts_at": "2030-11-30T18:00:00Z""#),
            ("downtown-fremont", #""ends_at": null"#, #""ends_at": "2026-11-20T08:00:00Z""#),
        ] {
            let path = workspace.hunts + "/\(hunt).geojson"
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains(from))
            try workspace.write("\(hunt).geojson", text.replacingOccurrences(of: from, with: to))
        }
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let feed = try json(try await server.call("GET", "/v1/hunts").body).array
        let states = Dictionary(
            uniqueKeysWithValues: feed.compactMap { h in
                h["id"]?.string.map { ($0, h["state"]?.string ?? "") }
            })
        #expect(states == ["strip-classics": "upcoming", "downtown-fremont": "closed"], "\(states)")
        let file = try json(try await server.call("GET", "/v1/hunts/strip-classics").body)
        #expect(file["state"]?.string == "upcoming")

        try browserScript(
            "schedule_test.py", checks: "schedule", server: server, workspace: workspace,
            environment: ["VSH_OPENS=Sat, Nov 30, 10:00 AM"])
    }

    /// A player's minute at a stop (Tests/Browser/minute_test.py): with location blocked nothing is
    /// sent and the page says how to turn it on; a fresh watched fix goes with the photo at once; the
    /// verdict names the badges, ends the hunt with its share link and points to the next stop; an
    /// offline check-in's notice says why it waits, and the moderator's reason reaches the player;
    /// the review page updates itself; another player's profile shows accepted check-ins only.
    @Test func aPlayersMinuteAtAStop() async throws {
        let workspace = try Workspace()
        try workspace.write("plaza.geojson", Self.plaza)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        try browserScript(
            "minute_test.py", checks: "minute", server: server, workspace: workspace,
            environment: Self.league(workspace))
    }

    /// An organiser makes a hunt on a phone (Tests/Browser/organise_test.py): draws a stop and drags
    /// a corner, makes a circle at the emulated position, walks a perimeter, sees a warning and an
    /// error where they belong, publishes; the players' page shows the stops without a restart.
    @Test func anOrganiserMakesAHuntOnAPhone() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        try browserScript(
            "organise_test.py", checks: "organise", server: server, workspace: workspace,
            environment: Self.league(workspace))
        let revisions = try workspace.vsh(["hunts"]).stdout
        #expect(revisions.contains("springs-preserve-walk"), "\(revisions)")
    }

    /// With the operator's street tiles, the console draws on Leaflet (Tests/Browser/organise_tiles_test.py,
    /// which serves the tiles itself): a stop drawn and a corner dragged, a hole cut in it, published.
    @Test func anOrganiserDrawsOverStreetTiles() async throws {
        let workspace = try Workspace()
        let port = try TestSupport.freePort()
        let server = try ServedVSH(
            workspace: workspace,
            extra: [
                "--tiles", "http://127.0.0.1:\(port)/{z}/{x}/{y}.png", "--tiles-attribution", "Test tiles",
            ])
        defer { server.stop() }
        try browserScript(
            "organise_tiles_test.py", checks: "organise-tiles", server: server, workspace: workspace,
            environment: Self.league(workspace) + ["VSH_TILE_PORT=\(port)"])
    }

    /// A player joins a private hunt with its code on a phone (Tests/Browser/join_test.py): the join
    /// address signed out leads through sign-up and back, the hunt is theirs, a wrong code says so;
    /// an organiser's announcement to the hunt appears on the open page at once.
    @Test func aPlayerJoinsAPrivateHuntByItsCode() async throws {
        let workspace = try Workspace()
        // With a cover picture, which the server shows only to the hunt's players.
        try workspace.write(
            "team-day.geojson",
            PrivateHuntTests.file.replacingOccurrences(
                of: #""tolerance_m": 10,"#, with: #""tolerance_m": 10, "image": "images/cover.png","#))
        let images = URL(fileURLWithPath: workspace.hunts).appendingPathComponent("images")
        try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
        try Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
        )!.write(to: images.appendingPathComponent("cover.png"))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        try browserScript(
            "join_test.py", checks: "join", server: server, workspace: workspace,
            environment: Self.league(workspace) + ["VSH_JOIN_CODE=\(PrivateHuntTests.code)"])
    }

    /// Proof beyond GPS (Tests/Browser/code_test.py): a printed QR code's address on a phone with no
    /// position checks in through sign-in; a code typed at another stop; the stop's screen shows the
    /// RFC 6238 code, by its link too and offline; the console shows the stop's codes. The hall and the
    /// atrium are two exhibits in one room (the same fence), so that two check-ins seconds apart are
    /// a believable pace.
    @Test func anIndoorStopTakesItsCodes() async throws {
        let workspace = try Workspace()
        let secret = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
        try workspace.write(
            "casino-night.geojson",
            StopCodeTests.file.replacingOccurrences(
                of: #""rotating_code": true, "proof""#,
                with: #""rotating_code": {"secret": "\#(secret)"}, "proof""#
            ).replacingOccurrences(
                of: StopCodeTests.stop(
                    "casino-lobby", "Casino lobby", lat: 36.1230, lon: -115.1650,
                    #""code": "\#(StopCodeTests.lobbyCode)""#),
                with: StopCodeTests.stop(
                    "neon-hall", "Neon hall", lat: 36.1210, lon: -115.1620, #""code": "NEQNHRWX22""#)))
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let hunt = try await server.call("GET", "/v1/hunts/casino-night")
        #expect(hunt.body.contains("neon-hall") && !hunt.body.contains(secret), "\(hunt.body)")
        try browserScript(
            "code_test.py", checks: "code", server: server, workspace: workspace,
            environment: Self.league(workspace) + ["VSH_SECRET=\(secret)"])
    }

    /// Questions at a stop on a phone (Tests/Browser/question_test.py): a wrong answer that still
    /// checks in and leaves tries, the right one in capitals with an accent earning its points, a
    /// choice picked, and the console's editor showing the organiser the answers.
    @Test func aStopAsksItsQuestion() async throws {
        let workspace = try Workspace()
        try workspace.write("fountain-walk.geojson", StopQuestionTests.file)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let hunt = try await server.call("GET", "/v1/hunts/fountain-walk")
        #expect(hunt.body.contains("Which hotel") && !hunt.body.contains("Bellagio"), "\(hunt.body)")
        try browserScript(
            "question_test.py", checks: "question", server: server, workspace: workspace,
            environment: Self.league(workspace))
    }

    /// Playing in a team on a phone (Tests/Browser/team_test.py): a hunt played in teams says so,
    /// a player makes a team and shares its code, a friend joins, the team board and the team's page
    /// show the team once with both members' stops.
    @Test func aPlayerPlaysInATeam() async throws {
        let workspace = try Workspace()
        try workspace.write("springs-preserve.geojson", TeamTests.file)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        try browserScript(
            "team_test.py", checks: "team", server: server, workspace: workspace,
            environment: Self.league(workspace))
    }

    /// The moderators' live feed (Tests/Browser/live_test.py): a photo check-in appears with its
    /// thumbnail, is featured on the projector board, and revoked off it.
    @Test func aModeratorFeaturesAPhoto() async throws {
        let workspace = try Workspace()
        // The hunt shares players' positions with its organisers.
        let path = workspace.hunts + "/strip-classics.geojson"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let sharing = text.replacingOccurrences(
            of: #""timezone": "America/Los_Angeles""#,
            with: #""timezone": "America/Los_Angeles", "share_positions": true"#)
        #expect(sharing != text)
        try workspace.write("strip-classics.geojson", sharing)
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        try browserScript(
            "live_test.py", checks: "live", server: server, workspace: workspace,
            environment: Self.league(workspace) + ["VSH_PHOTO=\(workspace.fixturePath("sign-inside.jpg"))"])
    }

    /// The app in the browser's language (Tests/Browser/language_test.py): Spanish texts and dates
    /// for a browser that asks for Spanish, the operator's `--title`, a hunt's Spanish name from its
    /// file, and a switch to English that is remembered.
    @Test func theAppSpeaksTheBrowsersLanguage() async throws {
        let workspace = try Workspace()
        let path = workspace.hunts + "/strip-classics.geojson"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""starts_at": null"#))
        text = text.replacingOccurrences(
            of: #""starts_at": null"#, with: #""starts_at": "2030-11-30T18:00:00Z""#)
        // Its name and description in Spanish, as an organiser writes them in the file.
        text = text.replacingOccurrences(
            of: #""timezone": "America/Los_Angeles""#,
            with:
                #""timezone": "America/Los_Angeles", "translations": {"es": {"name": "Clásicos del Strip", "description": "Los iconos del Strip a pie."}}"#
        )
        try workspace.write("strip-classics.geojson", text)
        let server = try ServedVSH(workspace: workspace, extra: ["--title", "Trafalgar Trail"])
        defer { server.stop() }
        let config = try json(try await server.call("GET", "/app/config.json").body)
        #expect(config["title"]?.string == "Trafalgar Trail")
        try browserScript("language_test.py", checks: "language", server: server, workspace: workspace)
    }

    /// The venue's board page (`vsh leaderboard --format html`) on a phone (Tests/Browser/board_test.py):
    /// every column in its width, a row a player, when it was updated on the hunt's clock.
    @Test func theVenuesBoardFitsAPhone() throws {
        let workspace = try Workspace()
        try workspace.league()
        let page = try workspace.vsh(["leaderboard", "--format", "html", "--hunt", "strip-classics"])
        #expect(page.status == 0, "\(page.stderr)")
        let file = workspace.root.appendingPathComponent("board.html")
        try Data(page.stdout.utf8).write(to: file)
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        let run = try TestSupport.run(
            "/usr/bin/env",
            [
                "VSH_BOARD=\(file.path)", "VSH_SCREENSHOTS=\(Self.screenshots.path)",
                "HOME=\(workspace.root.path)", "python3",
                TestSupport.packageRoot.appendingPathComponent("Tests/Browser/board_test.py").path,
            ],
            currentDirectory: workspace.root)
        #expect(run.status == 0, "\(run.stdout.suffix(6000))\n\(run.stderr.suffix(3000))")
        #expect(run.stdout.contains("all board checks passed"))
    }

    /// Where every script's screenshots go (`.build/screenshots`).
    static let screenshots = TestSupport.packageRoot.appendingPathComponent(".build/screenshots")

    /// The league a script may change itself: the binary, the database, the hunts and the photos.
    static func league(_ workspace: Workspace) -> [String] {
        [
            "VSH_BIN=\(TestSupport.productsDirectory.appendingPathComponent("vsh").path)",
            "VSH_DB=\(workspace.db)", "VSH_HUNTS=\(workspace.hunts)",
            "VSH_PHOTOS=\(TestSupport.packageRoot.appendingPathComponent("Fixtures/photos").path)",
        ]
    }

    /// Runs `Tests/Browser/<script>` against `server` (with VSH_URL, VSH_SCREENSHOTS, a HOME of its
    /// own and `environment`) and expects it to exit 0 saying "all <checks> checks passed".
    func browserScript(
        _ script: String, checks: String, server: ServedVSH, workspace: Workspace, environment: [String] = []
    ) throws {
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        let run = try TestSupport.run(
            "/usr/bin/env",
            [
                "VSH_URL=\(server.base)", "VSH_SCREENSHOTS=\(Self.screenshots.path)",
                "HOME=\(workspace.root.path)",
            ]
                + environment
                + [
                    "python3", TestSupport.packageRoot.appendingPathComponent("Tests/Browser/" + script).path,
                ],
            currentDirectory: workspace.root)
        #expect(run.status == 0, "\(run.stdout.suffix(6000))\n\(run.stderr.suffix(3000))")
        #expect(run.stdout.contains("all \(checks) checks passed"))
    }

    /// A two-stop hunt whose stops are 33 m apart (a fix of ±20 m at each: a believable pace at
    /// once), the first featured with a sponsor.
    static let plaza = """
        {"type": "FeatureCollection",
         "hunt": {"id": "plaza", "name": "Paradise Plaza", "description": "Two stops around a small square.",
                  "difficulty": "easy", "bonus_points": 40, "ordered": false, "timezone": "America/Los_Angeles"},
         "features": [
          {"type": "Feature", "id": "plaza-fountain",
           "properties": {"name": "The Fountain", "description": "The square's fountain.", "points": 20,
                          "featured": true, "sponsor": "Café Luz"},
           "geometry": {"type": "Polygon", "coordinates": [[[-115.08, 36.05], [-115.07978, 36.05],
             [-115.07978, 36.05018], [-115.08, 36.05018], [-115.08, 36.05]]]}},
          {"type": "Feature", "id": "plaza-clock",
           "properties": {"name": "The Clock Tower", "description": "The tower on the square's north side.", "points": 30},
           "geometry": {"type": "Polygon", "coordinates": [[[-115.08, 36.0503], [-115.07978, 36.0503],
             [-115.07978, 36.05048], [-115.08, 36.05048], [-115.08, 36.0503]]]}}
         ]}
        """
}
