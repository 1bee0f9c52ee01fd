import Foundation
import Testing
import VSHCore
import VSHSpatiaLite
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// Security round 3 (docs/security.md): the network surface of a real `vsh serve` under attack,
/// each client from its own loopback address (127.0.0.x) where the attack needs several.
@Suite struct SecurityTests {
    static let bomb = TestSupport.packageRoot.appendingPathComponent("Fixtures/hostile/heic-grid-bomb.heic")
        .path

    /// The server's memory high-water mark (VmHWM), in bytes.
    static func peakMemory(_ server: ServedVSH) throws -> Int {
        let status = try String(
            contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? "")) * 1024
    }

    /// A 3.6 KB HEIF grid naming one 512-pixel tile 1,521 times (19,968 x 19,968 pixels, 1.7 GB
    /// and 20 s in libheif) is refused as an avatar (sent as image/jpeg) and as a check-in's photo,
    /// before it is decoded: the server's memory rises by less than 200 MB and it stays answering.
    /// `--password-cost` chooses bcrypt's work factor for new passwords only: an account made at 10
    /// is hashed at 10, one made before at 12 still signs in, a wrong name and a wrong password get the
    /// same answer; a cost under 10 or over 14 is refused before the server starts (exit 64).
    @Test func thePasswordCostIsChosenForNewPasswords() async throws {
        let workspace = try Workspace()
        #expect(try workspace.vsh(["player", "add", "Old Timer"]).status == 0)
        let set = try TestSupport.run(
            "vsh", ["player", "password", "Old Timer", "--db", workspace.db, "--hunts", workspace.hunts],
            stdin: Data("an old password\n".utf8))
        #expect(set.status == 0, "\(set.stderr)")
        let server = try ServedVSH(workspace: workspace, extra: ["--password-cost", "10"])
        defer { server.stop() }
        _ = try await server.register("New Comer", email: "new@example.org", password: "a new password")
        let hashes = try workspace.query(
            "SELECT name || ' ' || substr(password_hash, 1, 7) FROM players ORDER BY id")
        #expect(hashes == ["Old Timer $2b$12$", "New Comer $2b$10$"], "\(hashes)")
        for (name, password, status) in [
            ("Old Timer", "an old password", 201), ("New Comer", "a new password", 201),
            ("New Comer", "a wrong password", 401), ("No Such Player", "a new password", 401),
        ] {
            let answer = try await server.call(
                "POST", "/v1/sessions", json: #"{"username":"\#(name)","password":"\#(password)"}"#)
            #expect(answer.status == status, "\(name): \(answer.body)")
        }
        for cost in ["9", "15", "ten"] {
            let refused = try workspace.vsh(["serve", "--port", "0", "--password-cost", cost])
            #expect(
                refused.status == 64 && refused.stderr.contains("--password-cost"),
                "\(cost): \(refused.stderr)")
        }
    }

    @Test func aHEICGridBombIsRefusedBeforeItIsDecoded() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let token = try await server.register("Ann", email: "ann@example.org")
        let bomb = try Data(contentsOf: URL(fileURLWithPath: Self.bomb))
        #expect(bomb.count < 4096)
        let before = try Self.peakMemory(server)

        let avatar = try await server.call(
            "PUT", "/v1/me/avatar", token: token, headers: ["Content-Type": "image/jpeg"], data: bomb)
        #expect(avatar.status == 422, "\(avatar.body)")
        #expect(avatar.body.contains("50-megapixel budget"), "\(avatar.body)")
        let (body, type) = ServeRobustnessTests.multipart(photo: bomb)
        let checkIn = try await server.call(
            "POST", "/v1/checkins", token: token, headers: ["Content-Type": type], data: body)
        #expect(checkIn.status == 422, "\(checkIn.body)")
        #expect(checkIn.body.contains("budget"), "\(checkIn.body)")
        #expect(try await server.call("GET", "/healthz").status == 200)
        let rise = try Self.peakMemory(server) - before
        #expect(rise < 200 << 20, "the server's memory rose by \(rise >> 20) MB")
        // Nothing was recorded.
        server.stop()
        let store = try await SpatiaLiteStore.open(path: workspace.db, hunts: nil)
        #expect(try await store.players().first?.checkIns == 0)
    }

    /// An avatar whose bytes are no picture is refused whatever its Content-Type says.
    @Test func anAvatarIsJudgedByItsBytes() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let token = try await server.register("Ann", email: "ann@example.org")
        let text = try await server.call(
            "PUT", "/v1/me/avatar", token: token, headers: ["Content-Type": "image/jpeg"],
            data: Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8))
        #expect(text.status == 415, "\(text.body)")
        #expect(text.headers["content-type"] == "application/problem+json")
    }

    /// A connection that sends nothing, half a request head, a head and half its body, or that
    /// idles after a request, is closed by the server after `--idle-timeout`; a normal client is
    /// answered meanwhile.
    @Test func slowConnectionsAreClosedWhileOthersAreServed() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--idle-timeout", "2"])
        defer { server.stop() }
        let silent = try RawConnection(port: server.port)
        let halfHead = try RawConnection(port: server.port)
        try halfHead.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow:")
        let halfBody = try RawConnection(port: server.port)
        try halfBody.send(
            "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 100\r\n\r\n{\"username\":")
        let idle = try RawConnection(port: server.port)
        try idle.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")

        #expect(try await server.call("GET", "/healthz").status == 200)
        for (name, connection) in [("silent", silent), ("half head", halfHead), ("half body", halfBody)] {
            // Waits up to 20 s (ten times the timeout): closed means the server hung up.
            #expect(connection.readUntilClosed(seconds: 20).closed, "\(name): still open")
        }
        let answered = idle.readUntilClosed(seconds: 20)
        #expect(answered.text.hasPrefix("HTTP/1.1 200"), "\(answered.text)")
        #expect(answered.closed, "idle after a request: still open")
    }

    /// One address may hold `--max-connections-per-address` connections; the next is closed as it
    /// opens, while another address is still served.
    @Test func oneAddressCannotTakeEveryConnection() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--max-connections-per-address", "5"])
        defer { server.stop() }
        var held: [RawConnection] = []
        for _ in 0..<5 { held.append(try RawConnection(port: server.port)) }
        // The five are served (a request each, kept alive).
        for connection in held {
            try connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(connection.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
        }
        let sixth = try RawConnection(port: server.port)
        try? sixth.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let refused = sixth.readUntilClosed(seconds: 10)
        #expect(refused.closed && refused.text.isEmpty, "the sixth was answered: \(refused.text)")
        let other = try RawConnection(port: server.port, from: "127.0.0.2")
        try other.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(other.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
        // A connection that closes frees its place at once.
        held.removeFirst().close()
        var again = ""
        for _ in 0..<50 where !again.hasPrefix("HTTP/1.1 200") {
            let next = try RawConnection(port: server.port)
            try? next.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            again = next.readHead(seconds: 10)
            if !again.hasPrefix("HTTP/1.1 200") { usleep(100_000) }
        }
        #expect(again.hasPrefix("HTTP/1.1 200"))
    }

    /// Live-update streams: one address gets a share of them (here 5 of 20), another address is
    /// still served, and a stream that closes frees its slot at once (not at the next heartbeat).
    @Test func oneAddressCannotTakeEveryLiveUpdateSlot() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--max-connections", "40"])
        defer { server.stop() }
        let ask = "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
        var streams: [RawConnection] = []
        for _ in 0..<5 {
            let stream = try RawConnection(port: server.port)
            try stream.send(ask)
            #expect(stream.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
            streams.append(stream)
        }
        let sixth = try RawConnection(port: server.port)
        try sixth.send(ask)
        #expect(sixth.readHead(seconds: 10).hasPrefix("HTTP/1.1 503"))
        let other = try RawConnection(port: server.port, from: "127.0.0.3")
        try other.send(ask)
        #expect(other.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
        streams.removeFirst().close()
        var again = ""
        for _ in 0..<50 where !again.hasPrefix("HTTP/1.1 200") {
            let next = try RawConnection(port: server.port)
            try next.send(ask)
            again = next.readHead(seconds: 10)
            if !again.hasPrefix("HTTP/1.1 200") { usleep(100_000) }
            streams.append(next)
        }
        #expect(again.hasPrefix("HTTP/1.1 200"), "the closed stream's slot stayed taken")
    }

    /// Strangers guessing a player's password: eleven wrong passwords from one address stop that
    /// address, not the owner signing in from elsewhere; a spray from many addresses closes the
    /// name to new addresses, but not to an address the owner signed in from before.
    @Test func theOwnerSignsInDuringSomeoneElsesSpray() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        _ = try await server.register("Ann Lee", email: "ann@example.org", password: "tumbling dice")
        /// `count` sign-ins from `address` sent at once (every request out before any answer is
        /// read, so that a limit counts them as they arrive, however slow bcrypt is), their statuses.
        func signIns(_ password: String, from address: String, count: Int = 1) throws -> [String] {
            let body = #"{"username":"Ann Lee","password":"\#(password)"}"#
            let connections = try (0..<count).map { _ in try RawConnection(port: server.port, from: address) }
            for connection in connections {
                try connection.send(
                    "POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            return connections.map { String($0.readHead(seconds: 120).dropFirst(9).prefix(3)) }
        }
        #expect(try signIns("tumbling dice", from: "127.0.0.9") == ["201"])
        // Eleven wrong passwords from one stranger at once: at most ten are checked (the pair's
        // bucket), fewer when wrong answers come back before the last arrive (the back-off)...
        let stranger = try signIns("guess guess", from: "127.0.0.20", count: 11)
        #expect(stranger.allSatisfy { $0 == "401" || $0 == "429" }, "\(stranger)")
        #expect(stranger.filter { $0 == "401" }.count >= 5 && stranger.contains("429"), "\(stranger)")
        // ...and the owner, elsewhere, signs in.
        #expect(try signIns("tumbling dice", from: "127.0.0.21") == ["201"])
        // A spray from many addresses (ten each) closes the name to addresses new to it...
        var closed = false
        for address in 30..<60 where !closed {
            _ = try signIns("spray spray", from: "127.0.0.\(address)", count: 10)
            closed = try signIns("tumbling dice", from: "127.0.1.\(address)") == ["429"]
        }
        #expect(closed, "the spray never closed the name to new addresses")
        // ...but not to the owner's own.
        #expect(try signIns("tumbling dice", from: "127.0.0.9") == ["201"])
        #expect(try signIns("tumbling dice", from: "127.0.0.21") == ["201"])
    }

    /// A reset request mails one message however many accounts share the address, naming each
    /// with its own link; a link sent before a change of address or password no longer works.
    @Test func oneResetMessageARequestAndLinksDieWithAChange() async throws {
        let workspace = try Workspace()
        let sink = try SMTPSink(folder: workspace.root.appendingPathComponent("mail"))
        defer { sink.stop() }
        let server = try ServedVSH(workspace: workspace, extra: ["--smtp", "smtp://127.0.0.1:\(sink.port)"])
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "family@example.org")
        _ = try await server.register("Bo Lee", email: "family@example.org")
        _ = try await server.register("Cy Lee", email: "FAMILY@example.org")
        #expect(
            try await server.call("POST", "/v1/password-resets", json: #"{"email":"family@example.org"}"#)
                .status == 202)
        let message = try sink.waitForMessages(1)[0]
        for name in ["Ann Lee", "Bo Lee", "Cy Lee"] { #expect(message.text.contains("\(name):\n")) }
        let tokens = message.text.matches(of: #/reset-password\?token=([0-9a-f]{64})/#).map { String($0.1) }
        #expect(tokens.count == 3 && Set(tokens).count == 3)
        usleep(500_000)
        let inbox = try FileManager.default.contentsOfDirectory(
            atPath: sink.folder.appendingPathComponent("new").path)
        #expect(inbox.count == 1, "more than one message for one request")

        // Ann changes her password: her link dies; Bo's still works.
        let change = try await server.call(
            "PATCH", "/v1/me", json: #"{"current_password":"tumbling dice","password":"a brand new one"}"#,
            token: ann)
        #expect(change.status == 200, "\(change.body)")
        let annToken = try #require(tokens.first)
        let used = try await server.call(
            "POST", "/v1/password-resets/\(annToken)", json: #"{"password":"the attacker's"}"#)
        #expect(used.status == 404)
        #expect(
            try await server.call(
                "POST", "/v1/password-resets/\(tokens[1])", json: #"{"password":"bo's new one"}"#
            )
            .status == 204)
    }

    /// E-mail addresses are checked as addresses: control characters, angle brackets and a bare
    /// "@" are refused (422, nothing recorded); "." and ".." are not names.
    @Test func addressesAndNamesThatBreakMailOrLinksAreRefused() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let addresses = [
            #"ann\u0000@example.org"#, #"ann\u001b[31m@example.org"#, "<ann@example.org>", "@", "ann@",
            "@example.org", "ann@@example.org", "ann@exa mple.org", "ann@-example.org",
        ]
        for address in addresses {
            let answer = try await server.call(
                "POST", "/v1/accounts",
                json: #"{"username":"Ann","email":"\#(address)","password":"tumbling dice"}"#)
            #expect(answer.status == 422, "\(address): \(answer.status) \(answer.body)")
            #expect(answer.body.contains("\\\"email\\\""), "\(answer.body)")
            #expect(!answer.body.contains("\u{1B}"))
        }
        for name in [".", "..", "-", "'"] {
            let answer = try await server.call(
                "POST", "/v1/accounts",
                json: #"{"username":"\#(name)","email":"ann@example.org","password":"tumbling dice"}"#)
            #expect(answer.status == 422, "\(name): \(answer.status) \(answer.body)")
        }
        #expect(try await server.call("GET", "/v1/leaderboard").body == "[]")
        #expect(
            try await server.call(
                "POST", "/v1/accounts",
                json: #"{"username":"Ann","email":"ann+hunt@mail.example.org","password":"tumbling dice"}"#
            ).status == 201)
    }

    /// A name that looks like an existing player's (Unicode TR 39's confusables skeleton) is
    /// refused at sign-up with 409 naming it: Greek "ΒΟΒ" beside "BOB", "AIice" beside "Alice".
    /// Nothing is recorded, and an unlike name registers as usual.
    @Test func lookalikeNamesAreRefusedAtSignUp() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        func signUp(_ name: String, _ mail: String) async throws -> (status: Int, body: String) {
            let answer = try await server.call(
                "POST", "/v1/accounts",
                json: #"{"username":"\#(name)","email":"\#(mail)@example.org","password":"tumbling dice"}"#)
            return (answer.status, answer.body)
        }
        #expect(try await signUp("BOB", "bob").status == 201)
        #expect(try await signUp("Alice", "alice").status == 201)
        for (name, existing) in [("\u{392}\u{39F}\u{392}", "BOB"), ("AIice", "Alice")] {
            let answer = try await signUp(name, "other")
            #expect(answer.status == 409, "\(name): \(answer.status) \(answer.body)")
            #expect(answer.body.contains(#"looks like \"\#(existing)\""#), "\(answer.body)")
        }
        #expect(try await signUp("Alicia", "alicia").status == 201)
        let names = try json(try workspace.vsh(["players", "--json"]).stdout).array.compactMap {
            $0["name"]?.string
        }
        #expect(Set(names) == ["BOB", "Alice", "Alicia"])
    }

    /// Signing in with the e-mail address works as with the name (any case), and every failure gets
    /// the one answer: a wrong password, an unknown address, and an address two players share
    /// (whose players sign in by name).
    @Test func playersSignInWithTheirNameOrTheirEmailAddress() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        _ = try await server.register("Ann Lee", email: "ann@example.org")
        _ = try await server.register("Kit One", email: "family@example.org")
        _ = try await server.register("Kit Two", email: "family@example.org")
        func signIn(_ who: String, _ password: String = "tumbling dice") async throws -> (Int, String) {
            let answer = try await server.call(
                "POST", "/v1/sessions", json: #"{"username":"\#(who)","password":"\#(password)"}"#)
            return (answer.status, answer.body)
        }
        for who in ["Ann Lee", "ann@example.org", " ANN@Example.org "] {
            let (status, body) = try await signIn(who)
            #expect(status == 201, "\(who): \(body)")
            #expect(try json(body)["player"]?["username"]?.string == "Ann Lee", "\(who): \(body)")
        }
        let refused = try await signIn("Ann Lee", "wrong password!")
        #expect(refused.0 == 401)
        for (who, password) in [
            ("ann@example.org", "wrong password!"), ("nobody@example.org", "tumbling dice"),
            ("family@example.org", "tumbling dice"),
        ] {
            let (status, body) = try await signIn(who, password)
            #expect(status == 401, "\(who): \(body)")
            #expect(body == refused.1, "\(who): \(body) against \(refused.1)")
        }
        #expect(try await signIn("Kit Two").0 == 201)
    }

    /// A player's public profile lists their accepted check-ins only (another player's rejected
    /// and pending attempts are theirs alone); their own profile lists everything.
    @Test(arguments: [false, true]) func othersSeeAPlayersAcceptedCheckInsOnly(_ postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let ann = try await server.register("Ann Lee", email: "ann@example.org")
        let viewer = try await server.register("Bo Peep", email: "bo@example.org")
        let sign = try #require(try Landmark.all().first)
        #expect(
            try await OperationsTests.deviceCheckIn(
                server, token: ann, "\(sign.latitude)", "\(sign.longitude)") == 201)
        // In the desert, far from every stop.
        #expect(try await OperationsTests.deviceCheckIn(server, token: ann, "36.2", "-115.6") == 201)
        func states(_ answer: (status: Int, body: String, headers: [String: String])) throws -> [String] {
            #expect(answer.status == 200, "\(answer.body)")
            return try json(answer.body)["recent"]?.array.compactMap { $0["state"]?.string } ?? []
        }
        let own = try states(try await server.call("GET", "/v1/me", token: ann))
        #expect(own == ["rejected", "accepted"], "\(own)")
        for token in [viewer, nil] {
            let seen = try states(try await server.call("GET", "/v1/players/Ann%20Lee", token: token))
            #expect(seen == ["accepted"], "\(seen)")
        }
    }

    /// A player learns why a moderator decided as they did: the reason is on their own check-ins
    /// (`GET /v1/me/checkins`), on every store, and on no one else's view of them.
    @Test(arguments: [false, true]) func playersSeeTheirModeratorsReasons(_ postGIS: Bool) async throws {
        let workspace = try Workspace.on(postGIS: postGIS)
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let player = try await server.register("Pat Ient", email: "pat@example.org")
        let mod = try await server.register("Mo Derator", email: "mo@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Derator", "moderator"]).status == 0)
        let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("poor-accuracy.jpg")))
        let (body, type) = ServeRobustnessTests.multipart(photo: photo)
        let sent = try await server.call(
            "POST", "/v1/checkins", token: player, headers: ["Content-Type": type], data: body)
        let id = try #require(try json(sent.body)["id"]?.int, "\(sent.body)")
        func mine() async throws -> JSONValue? {
            try json(try await server.call("GET", "/v1/me/checkins", token: player).body).array.first {
                $0["id"]?.int == id
            }
        }
        #expect(try await mine()?["reason"] == .null)
        let reason = "The sign is not in the picture: take it with the sign behind you."
        let rejected = try await server.call(
            "POST", "/v1/reviews/\(id)/reject", json: #"{"reason":"\#(reason)"}"#, token: mod)
        #expect(rejected.status == 200, "\(rejected.body)")
        let seen = try await mine()
        #expect(seen?["state"]?.string == "rejected")
        #expect(seen?["reason"]?.string == reason, "\(String(describing: seen))")
        // Not on the public profile, nor in the player's profile shape others read.
        let profile = try await server.call("GET", "/v1/players/Pat%20Ient")
        #expect(!profile.body.contains("sign behind you"))
    }

    /// A moderator may not decide their own pending check-in.
    @Test func aModeratorCannotApproveTheirOwnCheckIn() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let mod = try await server.register("Mo Derator", email: "mo@example.org")
        let other = try await server.register("Ot Her", email: "ot@example.org")
        #expect(try workspace.vsh(["player", "role", "Mo Derator", "moderator"]).status == 0)
        #expect(try workspace.vsh(["player", "role", "Ot Her", "moderator"]).status == 0)
        let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("poor-accuracy.jpg")))
        let (body, type) = ServeRobustnessTests.multipart(photo: photo)
        let sent = try await server.call(
            "POST", "/v1/checkins", token: mod, headers: ["Content-Type": type], data: body)
        #expect(try json(sent.body)["verdict"]?.string == "pending", "\(sent.body)")
        let id = try #require(try json(sent.body)["id"]?.int)
        let own = try await server.call("POST", "/v1/reviews/\(id)/approve", json: "{}", token: mod)
        #expect(own.status == 403, "\(own.body)")
        let ownReject = try await server.call(
            "POST", "/v1/reviews/\(id)/reject", json: #"{"reason":"mine"}"#, token: mod)
        #expect(ownReject.status == 403)
        let theirs = try await server.call("POST", "/v1/reviews/\(id)/approve", json: "{}", token: other)
        #expect(theirs.status == 200, "\(theirs.body)")
    }

    /// The league file and the photo archive are the owner's alone, whatever the umask; a killed
    /// server's upload folder is removed by the next start.
    @Test func privateFilesAndStaleUploads() async throws {
        let workspace = try Workspace()
        let stale = workspace.root.appendingPathComponent("vsh-uploads-\(Self.deadPID())-left-by-kill-9")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: false)
        try Data("half a photo".utf8).write(to: stale.appendingPathComponent("upload-1"))
        let previous = umask(0o022)
        defer { umask(previous) }
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        #expect(!FileManager.default.fileExists(atPath: stale.path), "the stale upload folder is still there")
        let token = try await server.register("Ann", email: "ann@example.org")
        let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg")))
        let (body, type) = ServeRobustnessTests.multipart(photo: photo)
        #expect(
            try await server.call(
                "POST", "/v1/checkins", token: token, headers: ["Content-Type": type], data: body
            )
            .status == 201)
        func mode(_ path: String) throws -> Int {
            (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
        }
        #expect(try mode(workspace.db) == 0o600)
        let photos = workspace.db + ".photos"
        #expect(try mode(photos) == 0o700)
        let folders = try FileManager.default.contentsOfDirectory(atPath: photos).filter {
            !$0.hasPrefix(".")
        }
        let folder = try #require(folders.first)
        #expect(try mode(photos + "/" + folder) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: photos + "/" + folder)
        let file = try #require(files.first)
        #expect(try mode(photos + "/" + folder + "/" + file) == 0o600)
    }

    /// A picture padded with megabytes of application segments (ICC-profile APP2, as many as fit)
    /// is archived as its picture: eight uploads of one photo with different padding, one accepted
    /// and seven refused as repeats, leave the archive under a megabyte (each kept copy has the
    /// same EXIF, image data and pixels), where the uploads carried 16 MiB.
    @Test func theArchiveKeepsThePictureNotThePadding() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        let token = try await server.register("Ann", email: "ann@example.org")
        let photo = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg"))))
        var verdicts: [String] = []
        for copy in 0..<8 {
            // 32 APP2 segments of 64 KiB after the start of image: 2 MiB that no decoder needs.
            let segment: [UInt8] = [0xFF, 0xE2, 0xFF, 0xFF] + [UInt8](repeating: UInt8(copy), count: 65_533)
            let padded =
                Array(photo[0..<2]) + Array((0..<32).map { _ in segment }.joined()) + Array(photo[2...])
            let (body, type) = ServeRobustnessTests.multipart(photo: Data(padded))
            let answer = try await server.call(
                "POST", "/v1/checkins", token: token, headers: ["Content-Type": type], data: body)
            #expect(answer.status == 201, "\(answer.body)")
            verdicts.append(try json(answer.body)["verdict"]?.string ?? "")
        }
        #expect(verdicts == ["accepted"] + Array(repeating: "rejected", count: 7))
        let photos = workspace.db + ".photos"
        var total = 0
        var files: [String] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: photos) where !folder.hasPrefix(".")
        {
            for name in try FileManager.default.contentsOfDirectory(atPath: photos + "/" + folder) {
                let path = photos + "/" + folder + "/" + name
                total += (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                files.append(path)
            }
        }
        #expect(total < 1 << 20, "the archive holds \(total) bytes")
        #expect(files.count == 1, "the copies differ only in padding, so one picture is kept: \(files.count)")
        // The kept copy is the photo: what exiftool reads of it is what it reads of the original.
        let file = try #require(files.first)
        let kept = try TestSupport.run(
            "/usr/bin/exiftool", ["-n", "-s3", "-GPSLatitude", "-GPSLongitude", file])
        let original = try TestSupport.run(
            "/usr/bin/exiftool",
            ["-n", "-s3", "-GPSLatitude", "-GPSLongitude", workspace.fixturePath("sign-inside.jpg")])
        #expect(kept.status == 0 && kept.stdout == original.stdout && !kept.stdout.isEmpty)
        server.stop()
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    /// A process id that no process has now.
    static func deadPID() -> Int32 {
        var pid: Int32 = 4_000_000
        while kill(pid, 0) == 0 || errno != ESRCH { pid -= 1 }
        return pid
    }
}

/// A TCP connection to the server on loopback, from a chosen loopback address, with blocking reads
/// under a timeout: for clients that misbehave on purpose.
final class RawConnection {
    let fd: Int32

    init(port: Int, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket: \(errno)") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw FixtureError("bind \(source): \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw FixtureError("connect: \(errno)") }
    }

    deinit { close() }

    private var isOpen = true

    func close() {
        if isOpen { _ = Glibc.close(fd) }
        isOpen = false
    }

    func send(_ text: String) throws { try send(bytes: Data(text.utf8)) }

    func send(bytes: Data) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw FixtureError("send: \(errno)") }
    }

    /// Reads until the server closes the connection or `seconds` pass without a byte.
    func readUntilClosed(seconds: Int) -> (text: String, closed: Bool) {
        setTimeout(seconds)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received += buffer[0..<n]
                continue
            }
            let closed = n == 0 || errno == ECONNRESET
            return (String(decoding: received, as: UTF8.self), closed)
        }
    }

    /// Reads one response: its head, then as many bytes as its Content-Length says.
    func readResponse(seconds: Int) -> (head: String, body: String) {
        let head = readHead(seconds: seconds)
        let length =
            head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = [UInt8](repeating: 0, count: length)
        var read = 0
        while read < length {
            let n = body[read...].withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { break }
            read += n
        }
        return (head, String(decoding: body[0..<read], as: UTF8.self))
    }

    /// Reads until a response head is complete, or the connection ends, or `seconds` pass.
    func readHead(seconds: Int) -> String {
        setTimeout(seconds)
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { break }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self)
    }

    private func setTimeout(_ seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}
