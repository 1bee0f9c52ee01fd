import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Proof beyond GPS on a real `vsh serve`, on SpatiaLite and on PostGIS: an indoor stop checked in by
/// its printed code with no fix at all, by its screen's rotating code (the current and the previous
/// step, not older), a wrong code and another stop's code refused, the QR code read back by zbarimg,
/// the secret vsh made at publish kept by the next sync, and no code or secret in anything players
/// are sent.
@Suite struct StopCodeTests {
    static let printed = "K7MQR2XWHT"
    static let lobbyCode = "PPPPQQQQRR"

    /// A stop of `OrganiserAPITests.stop` with more properties.
    static func stop(_ id: String, _ name: String, lat: Double, lon: Double, _ extra: String) -> String {
        OrganiserAPITests.stop(id, name, lat: lat, lon: lon).replacingOccurrences(
            of: #""points": 50}"#, with: #""points": 50, \#(extra)}"#)
    }

    static let file = OrganiserAPITests.hunt(
        "casino-night", name: "Casino night",
        stops: [
            stop(
                "sphere-atrium", "Sphere atrium", lat: 36.1210, lon: -115.1620,
                #""code": "\#(printed)", "rotating_code": true, "proof": ["code"]"#),
            stop("casino-lobby", "Casino lobby", lat: 36.1230, lon: -115.1650, #""code": "\#(lobbyCode)""#),
            stop("rotating-bar", "The bar", lat: 36.1250, lon: -115.1680, #""rotating_code": true"#),
        ])

    /// The rotating-code secret the database keeps for `stop` (made at publish).
    static func secret(_ workspace: Workspace, stop: String) throws -> String {
        let line = try workspace.query("SELECT secrets FROM stops WHERE id = '\(stop)'").first {
            $0.contains("rotating_secret")
        }
        return try #require(json(line ?? "")["rotating_secret"]?.string)
    }

    static func code(_ secret: String, stepsBack: Int64, at time: Date = Date()) throws -> String {
        let key = try #require(Base32.decode(secret))
        return TOTP.code(secret: key, counter: TOTP.counter(at: time) - stepsBack)
    }

    /// Waits, when the current step has less than `margin` seconds left, for the next one to begin:
    /// a code made now is then judged by the server in the same step. (The previous step's code
    /// made a second before a step ends is two steps old when the server reads it: CI met that once.)
    static func awaitFreshStep(margin: Double = 10) async throws {
        let into = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: TOTP.step)
        if TOTP.step - into < margin { try await Task.sleep(for: .seconds(TOTP.step - into + 0.1)) }
    }

    @Test(arguments: [false, true]) func anIndoorStopIsVerifiedByItsCodes(postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write("casino-night.geojson", Self.file)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let bo = try await server.register("Bo Diaz", email: "bo@example.org")
        let cy = try await server.register("Cy Ng", email: "cy@example.org")
        let mo = try await server.register("Mo Kent", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let sent = SentToPlayers(server)
        let checkIn = sent.checkIn
        func verdict(_ answer: (Int, JSONValue?)) -> String {
            answer.1?["verdict"]?.string ?? "HTTP \(answer.0)"
        }
        let detail = SentToPlayers.detail

        // Deep in the casino, no GPS at all: the printed code, typed loosely, is enough.
        let indoor = try await checkIn(ann, [("code", "k7mq-r2xw-ht")])
        #expect(indoor.0 == 201 && verdict(indoor) == "accepted", "\(String(describing: indoor.1))")
        #expect(indoor.1?["stop"]?.string == "sphere-atrium" && indoor.1?["points"]?.int == 50)
        #expect(detail(indoor, "code").contains("where GPS could not"), "\(detail(indoor, "code"))")
        // A wrong code for the atrium, the lobby's code for it, and a code that is no stop's.
        let wrong = try await checkIn(bo, [("code", "ABCDEFGHJK"), ("stop", "sphere-atrium")])
        #expect(
            verdict(wrong) == "rejected" && detail(wrong, "code") == "that is not the code of Sphere atrium")
        let other = try await checkIn(bo, [("code", Self.lobbyCode), ("stop", "sphere-atrium")])
        #expect(verdict(other) == "rejected" && other.1?["stop"]?.string == "sphere-atrium")
        let unknown = try await checkIn(bo, [("code", "ABCDEFGHJK")])
        #expect(unknown.0 == 422, "\(String(describing: unknown.1))")
        #expect(unknown.1?["detail"]?.string?.hasPrefix("code:") == true)
        let noStop = try await checkIn(bo, [("code", "ABCDEFGHJK"), ("stop", "nowhere")])
        #expect(noStop.0 == 422 && noStop.1?["detail"]?.string?.contains("stop") == true)
        // The atrium asks for its code: a good GPS fix inside it without the code is refused.
        let gpsOnly = try await checkIn(
            cy,
            [
                ("lat", "36.1210"), ("lon", "-115.1620"), ("accuracy_m", "5"),
                ("fix_time", RFC3339.format(Date())),
            ])
        #expect(verdict(gpsOnly) == "rejected" && detail(gpsOnly, "code").contains("asks for its code"))

        // The screen's code: the secret vsh made at publish, the current and the previous step
        // good, two steps back refused.
        let secret = try Self.secret(workspace, stop: "sphere-atrium")
        #expect(Base32.decode(secret)?.count == 20)
        let current = try await checkIn(
            bo, [("code", try Self.code(secret, stepsBack: 0)), ("stop", "sphere-atrium")])
        #expect(verdict(current) == "accepted", "\(String(describing: current.1))")
        try await Self.awaitFreshStep()
        let previous = try await checkIn(
            cy, [("code", try Self.code(secret, stepsBack: 1)), ("stop", "sphere-atrium")])
        #expect(verdict(previous) == "accepted", "\(String(describing: previous.1))")
        let barSecret = try Self.secret(workspace, stop: "rotating-bar")
        #expect(barSecret != secret)
        let stale = try await checkIn(
            ann, [("code", try Self.code(barSecret, stepsBack: 3)), ("stop", "rotating-bar")])
        #expect(verdict(stale) == "rejected" && detail(stale, "code").contains("a code lasts a minute"))

        // The QR code of the printed code, for organisers only, read back by zbarimg.
        #expect(try await server.call("GET", "/v1/stops/sphere-atrium/code.png", token: ann).status == 403)
        #expect(try await server.call("GET", "/v1/stops/rotating-bar/code.svg", token: mo).status == 404)
        let decoded = try await server.decodedQRCode(
            "/v1/stops/sphere-atrium/code.png", token: mo, in: workspace)
        #expect(decoded == "\(server.base)/stops/sphere-atrium?code=\(Self.printed)")

        // The atrium's screen: organisers only (or its link), the current code among the next four
        // hours', the QR code of each holding its check-in address; never the secret.
        #expect(try await server.call("GET", "/v1/stops/sphere-atrium/display", token: ann).status == 403)
        #expect(try await server.call("GET", "/v1/stops/sphere-atrium/display").status == 401)
        #expect(try await server.call("GET", "/v1/stops/casino-lobby/display", token: mo).status == 404)
        let screen = try await server.call("GET", "/v1/stops/sphere-atrium/display", token: mo)
        #expect(screen.status == 200 && !screen.body.contains(secret), "\(screen.status)")
        let shown = try json(screen.body)
        let codes = try #require(shown["codes"]?.array)
        #expect(codes.count >= 480 && shown["step_s"]?.int == 30)
        let step = TOTP.counter(at: Date())
        let now = try #require(codes.first { Int64($0["at"]?.int ?? 0) == step * 30 })
        let expected = try Self.code(secret, stepsBack: 0)
        #expect(now["code"]?.string == expected)
        #expect(Int64(codes.last?["at"]?.int ?? 0) >= (step + 470) * 30)
        let link = try #require(shown["screen_url"]?.string)
        let token = try #require(link.components(separatedBy: "token=").last)
        #expect(link.hasPrefix("\(server.base)/display/sphere-atrium?token="))
        let byLink = try await server.call("GET", "/v1/stops/sphere-atrium/display?token=\(token)")
        let linked = try json(byLink.body)
        #expect(
            byLink.status == 200 && linked["screen_url"] == nil && linked["codes"] != nil, "\(byLink.body)")
        let wrongLink = try await server.call("GET", "/v1/stops/rotating-bar/display?token=\(token)")
        #expect(wrongLink.status == 404)
        #expect(try await server.call("GET", "/v1/stops/sphere-atrium/display?token=AAAA").status == 404)

        // Everything a player is sent in this scenario carries no code and no secret.
        for path in [
            "/v1/hunts", "/v1/hunts/casino-night", "/v1/me/checkins", "/v1/leaderboard?hunt=casino-night",
            "/v1/players/Ann%20Lee", "/v1/announcements",
        ] {
            for token in [nil, ann] { _ = try await sent.get(path, token: token) }
        }
        let huntForPlayers = try await server.call("GET", "/v1/hunts/casino-night", token: ann)
        #expect(huntForPlayers.body.contains(#""has_code""#), "\(huntForPlayers.body)")
        let everything = sent.all
        #expect(everything.contains("sphere-atrium"))
        for secretText in [Self.printed, Self.lobbyCode, secret, barSecret] {
            #expect(!everything.contains(secretText), "a player was sent \(secretText)")
        }
        #expect(!everything.contains("rotating_secret") && !everything.contains(#""rotating_code""#))

        // The next sync of a changed file keeps the secret vsh made: the screens stay right.
        try workspace.write(
            "casino-night.geojson", Self.file.replacingOccurrences(of: "The bar", with: "The long bar"))
        let sync = try workspace.vsh(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(try Self.secret(workspace, stop: "sphere-atrium") == secret)
        #expect(try Self.secret(workspace, stop: "rotating-bar") == barSecret)
        // The hunt asks every stop for its code (`proof` as a list): a good fix in the lobby alone no
        // longer counts; with the lobby's code it does.
        try workspace.write(
            "casino-night.geojson",
            Self.file.replacingOccurrences(
                of: #""tolerance_m": 10}"#, with: #""tolerance_m": 10, "proof": ["code"]}"#))
        #expect(try workspace.vsh(["sync"]).status == 0)
        let lobbyFix = [
            ("lat", "36.1230"), ("lon", "-115.1650"), ("accuracy_m", "5"),
            ("fix_time", RFC3339.format(Date())),
        ]
        // Dee has checked in nowhere yet: no journey from another stop to judge.
        let dee = try await server.register("Dee Park", email: "dee@example.org")
        let bare = try await checkIn(dee, lobbyFix)
        #expect(
            verdict(bare) == "rejected" && detail(bare, "code").contains("asks for its code"),
            "\(String(describing: bare.1))")
        let coded = try await checkIn(dee, lobbyFix + [("code", Self.lobbyCode)])
        #expect(verdict(coded) == "accepted", "\(String(describing: coded.1))")
        // The log holds no code.
        #expect(!server.log.contains(Self.printed) && !server.log.contains(secret))
    }

    /// A check-in without a photo is read before its retry key is looked up (the group's
    /// transaction answers a retry): a retry that no longer goes through as it was sent, here a
    /// code the organiser has changed since, still gets the first answer and records nothing.
    @Test(arguments: [false, true]) func aRetryAfterItsCodeChangedGetsTheFirstAnswer(postGIS: Bool)
        async throws
    {
        let workspace = try Workspace.on(postGIS: postGIS)
        try workspace.write("casino-night.geojson", Self.file)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        func send(_ key: String) async throws -> (status: Int, body: String, headers: [String: String]) {
            let boundary = "b\(UUID().uuidString)"
            let body = [
                "--\(boundary)", #"Content-Disposition: form-data; name="code""#, "", Self.lobbyCode,
                "--\(boundary)--", "",
            ].joined(separator: "\r\n")
            return try await server.call(
                "POST", "/v1/checkins", token: ann,
                headers: [
                    "Content-Type": "multipart/form-data; boundary=\(boundary)", "Idempotency-Key": key,
                ],
                data: Data(body.utf8))
        }
        let first = try await send("lobby-1")
        #expect(first.status == 201 && first.headers["idempotent-replayed"] == nil, "\(first.body)")
        #expect(try json(first.body)["stop"]?.string == "casino-lobby")
        // The organiser prints the lobby a new code.
        try workspace.write(
            "casino-night.geojson", Self.file.replacingOccurrences(of: Self.lobbyCode, with: "WXYZ234567"))
        let sync = try workspace.vsh(["sync"])
        #expect(sync.status == 0, "\(sync.stderr)")
        // Sent anew, the old code is no stop's; sent again under its key, it gets its first answer.
        let anew = try await send("lobby-2")
        #expect(anew.status == 422, "\(anew.body)")
        let retry = try await send("lobby-1")
        #expect(retry.status == 201 && retry.headers["idempotent-replayed"] == "true", "\(retry.body)")
        #expect(retry.body == first.body)
        let mine = try json(try await server.call("GET", "/v1/me/checkins", token: ann).body)
        #expect(mine.array.count == 1, "\(mine)")
    }

    /// `vsh checkin --code --stop --now`: a screen's code at the current and the previous step, and
    /// refused two steps back; `vsh-master stop set --code auto --rotating` and the printed sheet,
    /// whose QR codes zbarimg reads back.
    @Test func theCommandsTakeAndPrintCodes() throws {
        let workspace = try Workspace()
        try workspace.write("casino-night.geojson", Self.file)
        let master = workspace.master
        let set = try master(["stop", "set", "rotating-bar", "--code", "auto", "--rotating"])
        #expect(set.status == 0, "\(set.stderr)")
        let file = try String(contentsOfFile: workspace.hunts + "/casino-night.geojson", encoding: .utf8)
        let hunt = try json(file)
        let bar = hunt["features"]?.array.first { $0["id"]?.string == "rotating-bar" }?["properties"]
        let barCode = try #require(bar?["code"]?.string)
        let secret = try #require(bar?["rotating_code"]?["secret"]?.string)
        #expect(barCode.count == StopCode.madeLength && Base32.decode(secret)?.count == 20)
        #expect(try master(["stop", "set", "rotating-bar", "--code", "SHORT"]).status == 64)
        #expect(try master(["validate"]).status == 0)

        for name in ["Ann Lee", "Bo Diaz", "Cy Ng"] {
            #expect(try workspace.vsh(["player", "add", name]).status == 0)
        }
        let now = "2026-11-27T21:00:10Z"
        let at = RFC3339.parse(now)!
        let results = try [("Ann Lee", 0), ("Bo Diaz", 1), ("Cy Ng", 2)].map { name, back in
            try workspace.vsh([
                "checkin", "--player", name, "--stop", "rotating-bar", "--code",
                try Self.code(secret, stepsBack: Int64(back), at: at), "--now", now, "--json",
            ])
        }
        #expect(results.map(\.status) == [0, 0, 1], "\(results.map(\.stdout)) \(results.map(\.stderr))")
        let printed = try workspace.vsh(["checkin", "--player", "Ann Lee", "--code", barCode, "--now", now])
        #expect(printed.status == 0, "\(printed.stdout)\(printed.stderr)")
        let unknown = try workspace.vsh([
            "checkin", "--player", "Ann Lee", "--code", "ABCDEFGHJK", "--now", now,
        ])
        #expect(
            unknown.status == 64 && unknown.stderr.contains("code:"), "\(unknown.status) \(unknown.stderr)")

        // A check-in the code placed that went to review (a quick walk from the lobby): a moderator
        // approves it without an override, though the code is not kept.
        let lobby = try workspace.vsh([
            "checkin", "--player", "Bo Diaz", "--fix", "36.1230,-115.1650", "--time", "2026-11-27T21:10:00Z",
            "--accuracy", "5", "--now", "2026-11-27T21:10:05Z",
        ])
        #expect(lobby.status == 0, "\(lobby.stdout)\(lobby.stderr)")
        let hurried = try workspace.vsh([
            "checkin", "--player", "Bo Diaz", "--code", Self.printed, "--now", "2026-11-27T21:11:05Z",
            "--json",
        ])
        #expect(hurried.status == 2, "\(hurried.stdout)\(hurried.stderr)")
        let pending = try #require(try json(hurried.stdout)["id"]?.int)
        let approved = try workspace.vsh(["review", "approve", String(pending)])
        #expect(approved.status == 0, "\(approved.stdout)\(approved.stderr)")

        // The sheet: a card per printed code (the atrium, the lobby, the bar), each QR code readable.
        let sheet = workspace.root.appendingPathComponent("sheet.svg").path
        let codes = try master([
            "codes", "--hunt", "casino-night", "--public-url", "https://hunt.example.org", "-o", sheet,
        ])
        #expect(codes.status == 0, "\(codes.stderr)")
        #expect(codes.stdout.contains("3 stop codes on 1 page"), "\(codes.stdout)")
        let mode = try FileManager.default.attributesOfItem(atPath: sheet)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let rendered = workspace.root.appendingPathComponent("sheet.png").path
        let render = try TestSupport.run(
            "/usr/bin/env", ["rsvg-convert", "-w", "1654", "-o", rendered, sheet])
        #expect(render.status == 0, "\(render.stderr)")
        let decoded = try TestSupport.run("/usr/bin/env", ["zbarimg", "--quiet", "--raw", rendered])
        let urls = Set(decoded.stdout.split(separator: "\n").map(String.init))
        #expect(
            urls == [
                "https://hunt.example.org/stops/sphere-atrium?code=\(Self.printed)",
                "https://hunt.example.org/stops/casino-lobby?code=\(Self.lobbyCode)",
                "https://hunt.example.org/stops/rotating-bar?code=\(barCode)",
            ], "\(decoded.stdout) \(decoded.stderr)")
        let svg = try String(contentsOfFile: sheet, encoding: .utf8)
        #expect(svg.contains("K7MQ-R2XW-HT") && svg.contains("Sphere atrium"))
    }
}
