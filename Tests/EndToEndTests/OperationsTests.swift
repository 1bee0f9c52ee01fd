import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Running a real event (docs/operations.md): a real `vsh serve` behind a proxy on loopback.
@Suite struct OperationsTests {
    /// `count` sign-ups at once, each with its own `X-Forwarded-For`, their statuses. The password is
    /// too short, so each is answered after the limits and the checks, without a password hash: what
    /// is measured is who the server counts, not how fast bcrypt is.
    static func signUps(_ server: ServedVSH, count: Int) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await server.call(
                        "POST", "/v1/accounts",
                        json:
                            #"{"username":"Player \#(index)","email":"p\#(index)@example.org","password":"short"}"#,
                        headers: ["X-Forwarded-For": "10.20.\(index / 200).\(index % 200 + 1)"]
                    ).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    /// A start line: 300 players behind one address sign up at once, each retrying after a 503
    /// (the password-hashing queue is full) as the web app lets them: all 300 are in and none is
    /// refused for the address's sake, since waiting for the queue does not use up the address's
    /// sign-ups. (`Benchmarks/start_line.py`: Python threads, one connection each, as `make bench`.)
    @Test func aStartLineOfThreeHundredSignsUpFromOneAddress() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--password-cost", "10"])
        defer { server.stop() }
        let run = try TestSupport.run(
            "/usr/bin/python3",
            [
                TestSupport.packageRoot.appendingPathComponent("Benchmarks/start_line.py").path, server.base,
                "300",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try json(run.stdout)["statuses"]
        #expect(counts?["201"] == .int(300) && counts?["429"] == nil, "\(run.stdout)")
        // The queue was full at times: what this is about.
        #expect((counts?["503"]?.int ?? 0) > 0, "\(run.stdout)")
        #expect(try workspace.query("SELECT count(*) FROM players") == ["300"])
    }

    /// 300 players behind a trusted proxy are 300 clients: none is refused for the others' sake.
    /// With the header forged and no `--trust-proxy` they are one client: a start line's 300 get in
    /// at once (the burst), 450 are limited.
    /// The access log shows the address as decided; a peer that is not the proxy names nobody.
    @Test func aCrowdBehindATrustedProxyIsCountedPlayerByPlayer() async throws {
        let workspace = try Workspace()
        let proxied = try ServedVSH(workspace: workspace, extra: ["--trust-proxy", "127.0.0.1/32"])
        defer { proxied.stop() }
        let behind = try await Self.signUps(proxied, count: 300)
        #expect(
            behind.count == 300 && behind.allSatisfy { $0 == 422 },
            "\(Dictionary(grouping: behind) { $0 }.mapValues(\.count))")

        let direct = try ServedVSH(workspace: try Workspace())
        defer { direct.stop() }
        let forged = try await Self.signUps(direct, count: 450)
        #expect(
            forged.filter { $0 == 429 }.count >= 100,
            "\(Dictionary(grouping: forged) { $0 }.mapValues(\.count))")
        #expect(forged.allSatisfy { $0 == 422 || $0 == 429 })

        // A real sign-up through the proxy, logged with the player's address.
        let answer = try await proxied.call(
            "POST", "/v1/accounts",
            json: #"{"username":"Ann","email":"ann@example.org","password":"tumbling dice"}"#,
            headers: ["Forwarded": #"for="[2001:db8:cafe::17]:4711";proto=https"#])
        #expect(answer.status == 201)
        #expect(proxied.log.contains("2001:db8:cafe::17 POST /v1/accounts 201"), "\(proxied.log.suffix(500))")
        // From another peer (127.0.0.2 is not the proxy), the header is ignored.
        let other = try RawConnection(port: proxied.port, from: "127.0.0.2")
        try other.send(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 203.0.113.99\r\nConnection: close\r\n\r\n"
        )
        #expect(other.readHead(seconds: 30).hasPrefix("HTTP/1.1 200"))
        #expect(proxied.log.contains("127.0.0.2 GET /healthz 200"), "\(proxied.log.suffix(500))")
        #expect(!proxied.log.contains("203.0.113.99"))
    }

    /// Behind the proxy, a password sprayer from many forwarded addresses is still stopped: the
    /// name closes to addresses new to it, while the owner's own address still signs in.
    @Test func aSprayThroughTheProxyIsStillStopped() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--trust-proxy", "127.0.0.0/8"])
        defer { server.stop() }
        func signIn(_ password: String, from address: String) async throws -> Int {
            try await server.call(
                "POST", "/v1/sessions", json: #"{"username":"Ann","password":"\#(password)"}"#,
                headers: ["X-Forwarded-For": address]
            ).status
        }
        _ = try await server.register("Ann", email: "ann@example.org")
        #expect(try await signIn("tumbling dice", from: "198.51.100.1") == 201)
        var closed = false
        for block in 0..<40 where !closed {
            let address = "203.0.113.\(block + 1)"
            _ = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<10 { group.addTask { try await signIn("spray spray", from: address) } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            closed = try await signIn("tumbling dice", from: "192.0.2.\(block + 1)") == 429
        }
        #expect(closed, "the spray never closed the name to new addresses")
        #expect(try await signIn("tumbling dice", from: "198.51.100.1") == 201)
    }

    /// A 70 MiB photo is refused before it is read: a client that sends its whole body before
    /// reading (Python's urllib) gets 413 or a reset, never a wait for its own timeout (it used
    /// to hang 60 s), and one that waits for the answer before it sends its body hears 413 at once. An
    /// error answer to a large body that was not read closes the connection too.
    @Test func anUploadOverTheCapIsAnsweredAndClosed() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        let token = try await server.register("Ann", email: "ann@example.org")
        let script = """
            import os, sys, urllib.request, urllib.error
            url, token = sys.argv[1], sys.argv[2]
            head = b'--XyZ\\r\\nContent-Disposition: form-data; name="photo"; filename="p.jpg"\\r\\nContent-Type: image/jpeg\\r\\n\\r\\n'
            for auth in (True, False):
                body = head + b'\\xff\\xd8' + os.urandom(70 * 1024 * 1024) + b'\\r\\n--XyZ--\\r\\n'
                headers = {"Content-Type": "multipart/form-data; boundary=XyZ"}
                if auth: headers["Authorization"] = "Bearer " + token
                try:
                    urllib.request.urlopen(urllib.request.Request(url, data=body, headers=headers), timeout=30)
                    print("accepted")
                except urllib.error.HTTPError as e:
                    print(e.code)
                except (ConnectionResetError, BrokenPipeError):
                    print("reset")
                except urllib.error.URLError as e:
                    print("reset" if isinstance(e.reason, (ConnectionResetError, BrokenPipeError)) else "error: %s" % e.reason)
            """
        let run = try tool("python3", ["-c", script, server.base + "/v1/checkins", token])
        let outcomes = run.stdout.split(separator: "\n").map(String.init)
        #expect(outcomes.count == 2, "\(run.stdout) \(run.stderr)")
        #expect(outcomes.allSatisfy { $0 == "413" || $0 == "reset" }, "\(outcomes)")
        // A client that reads before it sends the body hears 413 at once, with Connection: close.
        let early = try RawConnection(port: server.port, from: "127.0.0.1")
        try early.send(
            "POST /v1/checkins HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: \(70 * 1_048_576)\r\n\r\n"
        )
        let head = early.readHead(seconds: 30)
        #expect(head.hasPrefix("HTTP/1.1 413"), "\(head)")
        #expect(head.lowercased().contains("connection: close"), "\(head)")
        // Nothing was recorded, and the server answers.
        #expect(try await server.call("GET", "/v1/me/checkins", token: token).body == "[]")
        #expect(try await server.call("GET", "/healthz").status == 200)
    }

    /// `make venv` (run by `make test-deps`) makes the Python tools' virtual environment in the
    /// folder it runs in, and installs nothing into the system's interpreter (a stock Debian 12
    /// refuses that: PEP 668).
    @Test func theMakefilesVenvLeavesTheSystemInterpreterAlone() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-venv")
        let before = try tool("python3", ["-m", "pip", "list", "--format=freeze"])
        let make = try tool(
            "make",
            [
                "-f", TestSupport.packageRoot.appendingPathComponent("Makefile").path, "-C", folder.path,
                "venv",
            ])
        #expect(make.status == 0, "\(make.stdout) \(make.stderr)")
        let python = folder.appendingPathComponent(".build/venv/bin/python3").path
        #expect(FileManager.default.isExecutableFile(atPath: python))
        let config = try String(
            contentsOf: folder.appendingPathComponent(".build/venv/pyvenv.cfg"), encoding: .utf8)
        #expect(config.contains("include-system-site-packages = true"))
        // The environment's own prefix, and its pip installs there.
        let prefix = try tool(python, ["-c", "import sys; print(sys.prefix != sys.base_prefix, sys.prefix)"])
        #expect(
            prefix.stdout.hasPrefix("True \(folder.appendingPathComponent(".build/venv").path)"),
            "\(prefix.stdout)")
        let pip = try tool(python, ["-m", "pip", "--version"])
        #expect(pip.stdout.contains(folder.appendingPathComponent(".build/venv").path), "\(pip.stdout)")
        #expect(try tool("python3", ["-m", "pip", "list", "--format=freeze"]).stdout == before.stdout)
    }

    /// `--metrics-port`: `GET /metrics` in the Prometheus text format on its own loopback listener,
    /// parsed by prometheus_client's own parser; its counters move with the requests and check-ins;
    /// the public port has no /metrics.
    @Test func metricsAreScrapedFromTheirOwnListener() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--metrics-port", "0"])
        defer { server.stop() }
        let token = try await server.register("Ann", email: "ann@example.org")
        // A device fix at the Welcome sign, now.
        #expect(try await Self.deviceCheckIn(server, token: token, "36.082014", "-115.172734") == 201)
        #expect(try await server.call("GET", "/metrics").status == 404)

        let line = try #require(server.log.firstMatch(of: #/metrics on http://127\.0\.0\.1:(\d+)/metrics/#))
        let metrics = "http://127.0.0.1:\(line.1)/metrics"
        /// The samples of one scrape, as prometheus_client parses them: "name{k=v,...} value" lines.
        func scrape() throws -> [String: Double] {
            let script = """
                import sys, urllib.request
                from prometheus_client.parser import text_string_to_metric_families
                text = urllib.request.urlopen(sys.argv[1], timeout=30).read().decode()
                for family in text_string_to_metric_families(text):
                    for s in family.samples:
                        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
                        print("%s{%s} %r" % (s.name, labels, s.value))
                """
            let run = try tool("python3", ["-c", script, metrics])
            #expect(run.status == 0, "\(run.stderr)")
            var samples: [String: Double] = [:]
            for line in run.stdout.split(separator: "\n") {
                guard let space = line.lastIndex(of: " "),
                    let value = Double(line[line.index(after: space)...])
                else { continue }
                samples[String(line[..<space])] = value
            }
            return samples
        }
        let first = try scrape()
        #expect(
            first["vsh_http_requests_total{method=POST,route=/v1/accounts,status=201}"] == 1,
            "\(first.keys.sorted())")
        #expect(first["vsh_http_requests_total{method=POST,route=/v1/checkins,status=201}"] == 1)
        #expect(first["vsh_checkins_total{verdict=accepted}"] == 1)
        #expect(first["vsh_group_commit_size_count{}"] == 1)
        #expect((first["vsh_http_request_duration_seconds_count{method=POST,route=/v1/accounts}"] ?? 0) == 1)
        // A refused sign-in and a check-in that fails a rule move their counters.
        #expect(
            try await server.call(
                "POST", "/v1/sessions", json: #"{"username":"Ann","password":"wrong words"}"#
            ).status
                == 401)
        // Far from every stop: rejected by at_stop.
        #expect(try await Self.deviceCheckIn(server, token: token, "36.0", "-115.172734") == 201)
        let second = try scrape()
        #expect(second["vsh_http_requests_total{method=POST,route=/v1/sessions,status=401}"] == 1)
        #expect(second["vsh_checkins_total{verdict=rejected}"] == 1)
        #expect(
            (second["vsh_rule_results_total{outcome=failed,rule=at_stop}"] ?? 0) >= 1,
            "\(second.keys.sorted())")
        #expect(second["vsh_http_requests_total{method=POST,route=/v1/checkins,status=201}"] == 2)
        // Nothing in it names a player, an address or a token.
        let raw = try tool(
            "python3",
            [
                "-c",
                "import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())",
                metrics,
            ])
        #expect(
            !raw.stdout.contains("Ann") && !raw.stdout.contains("127.0.0.1") && !raw.stdout.contains(token))
    }

    /// A device check-in over HTTP at (lat, lon), fixed now: its status.
    static func deviceCheckIn(_ server: ServedVSH, token: String, _ lat: String, _ lon: String) async throws
        -> Int
    {
        let boundary = "vsh-operations"
        var body = ""
        for (name, value) in [
            ("lat", lat), ("lon", lon), ("accuracy_m", "5"), ("fix_time", RFC3339.format(Date())),
        ] {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        body += "--\(boundary)--\r\n"
        return try await server.call(
            "POST", "/v1/checkins", token: token,
            headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], data: Data(body.utf8)
        ).status
    }

    /// The restore drill: a backup taken while players check in is one consistent league (vsh
    /// doctor passes on the restored copy, scores equal a rescore, every photo is there), holding
    /// at least what was committed before it began and at most what was committed before the load
    /// stopped; a backup of a quiet league restores to the same leaderboard. Restoring never
    /// overwrites a league.
    @Test func aBackupUnderLoadRestoresToAWholeLeague() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        var tokens: [String] = []
        for index in 0..<4 {
            tokens.append(try await server.register("Player \(index)", email: "p\(index)@example.org"))
        }
        // A photo in the archive, so that the backup carries photos too.
        let (photo, type) = ServeRobustnessTests.multipart(
            photo: try Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/sign-inside.jpg"))
        )
        _ = try await server.call(
            "POST", "/v1/checkins", token: tokens[0], headers: ["Content-Type": type], data: photo)
        func count(_ db: String) throws -> Int {
            try json(try TestSupport.run("vsh", ["players", "--json", "--db", db]).stdout).array.reduce(0) {
                $0 + ($1["checkins"]?.int ?? 0)
            }
        }
        let before = try count(workspace.db)
        let backup = workspace.root.appendingPathComponent("backup.sqlite").path
        let (made, after): (TestSupport.ProcessResult, Int) = try await withThrowingTaskGroup(of: Void.self) {
            group in
            let stop = ManagedFlag()
            for token in tokens {
                group.addTask {
                    while !stop.value {
                        _ = try await Self.deviceCheckIn(server, token: token, "36.082014", "-115.172734")
                    }
                }
            }
            // Some check-ins land before the backup starts, some while it runs.
            while try count(workspace.db) < before + 20 { try await Task.sleep(for: .milliseconds(50)) }
            let made = try TestSupport.run("vsh", ["db", "backup", "--db", workspace.db, "--to", backup])
            stop.value = true
            try await group.waitForAll()
            return (made, try count(workspace.db))
        }
        #expect(made.status == 0, "\(made.stderr)")
        let restored = workspace.root.appendingPathComponent("restored.sqlite").path
        let restore = try TestSupport.run("vsh", ["db", "restore", "--from", backup, "--db", restored])
        #expect(restore.status == 0, "\(restore.stdout) \(restore.stderr)")
        let doctor = try TestSupport.run("vsh", ["doctor", "--db", restored])
        #expect(doctor.status == 0, "\(doctor.stdout)")
        #expect(doctor.stdout.contains("players whose points differ from a rescore: 0"))
        #expect(doctor.stdout.contains("check-ins whose photo is missing from the archive: 0"))
        let held = try count(restored)
        #expect(
            held >= before + 20 && held <= after, "\(before) before, \(held) in the backup, \(after) after")

        // A quiet league restores to the same board; a restore never overwrites.
        let quiet = workspace.root.appendingPathComponent("quiet.sqlite").path
        #expect(
            try TestSupport.run("vsh", ["db", "backup", "--db", workspace.db, "--to", quiet]).status == 0)
        let again = workspace.root.appendingPathComponent("again.sqlite").path
        #expect(try TestSupport.run("vsh", ["db", "restore", "--from", quiet, "--db", again]).status == 0)
        let board = try TestSupport.run("vsh", ["leaderboard", "--format", "json", "--db", workspace.db])
            .stdout
        #expect(
            try TestSupport.run("vsh", ["leaderboard", "--format", "json", "--db", again]).stdout == board)
        let overwrite = try TestSupport.run("vsh", ["db", "restore", "--from", quiet, "--db", again])
        #expect(overwrite.status == 64 && overwrite.stderr.contains("exists"), "\(overwrite.stderr)")
        #expect(
            try TestSupport.run("vsh", ["db", "backup", "--db", workspace.db, "--to", quiet]).status == 64)
        let mode = try FileManager.default.attributesOfItem(atPath: quiet)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// `--tls-cert` and `--tls-key`: HTTPS with a certificate made by openssl, which a client that
    /// verifies it (Python's ssl module, given the certificate) accepts; a client that trusts only
    /// the system's roots refuses it, and plain HTTP on that port gets no answer. A file that is not
    /// a key is refused at start, naming it.
    @Test func httpsWithACertificateMadeByOpenssl() throws {
        let workspace = try Workspace()
        let (cert, key) = try selfSignedCertificate(in: workspace.root)
        let server = try ServedVSH(workspace: workspace, extra: ["--tls-cert", cert, "--tls-key", key])
        defer { server.stop() }
        #expect(server.scheme == "https")
        let script = """
            import ssl, sys, urllib.request
            base, cert = sys.argv[1], sys.argv[2]
            verified = ssl.create_default_context(cafile=cert)
            answer = urllib.request.urlopen(base + "/v1/hunts", context=verified, timeout=30)
            print("verified", answer.status, answer.read(2).decode())
            # The board twice: the second from the read cache, sent on the connection's event loop.
            boards = [urllib.request.urlopen(base + "/v1/leaderboard", context=verified, timeout=30) for _ in range(2)]
            print("boards", [b.status for b in boards], len(set(b.read() for b in boards)))
            try:
                urllib.request.urlopen(base + "/healthz", timeout=30)
                print("untrusted accepted")
            except urllib.error.URLError as e:
                print("untrusted refused", isinstance(e.reason, ssl.SSLCertVerificationError))
            try:
                urllib.request.urlopen(base.replace("https:", "http:") + "/healthz", timeout=30)
                print("plain answered")
            except Exception:
                print("plain refused")
            """
        let run = try tool("python3", ["-c", script, server.base, cert])
        #expect(
            run.stdout == "verified 200 [{\nboards [200, 200] 1\nuntrusted refused True\nplain refused\n",
            "\(run.stdout) \(run.stderr)")
        let bad = try TestSupport.run(
            "vsh", ["serve", "--port", "0", "--db", workspace.db, "--tls-cert", cert, "--tls-key", cert])
        #expect(bad.status == 65 && bad.stderr.contains("\(cert): not a PEM private key"), "\(bad.stderr)")
        let half = try TestSupport.run(
            "vsh", ["serve", "--port", "0", "--db", workspace.db, "--tls-cert", cert])
        #expect(half.status == 64 && half.stderr.contains("--tls-cert and --tls-key go together"))
    }

    /// The systemd units `make install` ships (`make units` fills in their paths) pass
    /// `systemd-analyze verify` with nothing to say, and the service's exposure (systemd's own
    /// score of its hardening) is rated OK.
    @Test func theSystemdUnitsVerify() throws {
        let folder = try TestSupport.temporaryDirectory("vsh-units")
        let prefix = folder.appendingPathComponent("prefix")
        try FileManager.default.createDirectory(
            at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: prefix.appendingPathComponent("bin/vsh"),
            withDestinationURL: TestSupport.productsDirectory.appendingPathComponent("vsh"))
        let units = folder.appendingPathComponent("units").path
        let make = try tool(
            "make",
            [
                "-C", TestSupport.packageRoot.path, "--no-print-directory", "units", "UNITDIR=\(units)",
                "PREFIX=\(prefix.path)",
            ])
        #expect(make.status == 0, "\(make.stderr)")
        let files = ["vsh.service", "vsh-backup.service", "vsh-backup.timer"]
        let verify = try tool("systemd-analyze", ["verify", "--man=no"] + files.map { "\(units)/\($0)" })
        #expect(
            verify.status == 0 && verify.stderr.isEmpty && verify.stdout.isEmpty,
            "\(verify.stdout) \(verify.stderr)")
        let unit = try String(contentsOfFile: "\(units)/vsh.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix.path)/bin/vsh serve"))
        let security = try tool("systemd-analyze", ["security", "--offline=true", "\(units)/vsh.service"])
        let level = try #require(
            security.stdout.firstMatch(of: #/Overall exposure level for vsh.service: (\d+\.\d) (\w+)/#))
        #expect(Double(level.1) ?? 10 < 2 && level.2 == "OK", "\(security.stdout.suffix(300))")
    }

    /// `--log-format json`: every line of the log is one JSON object; a request's carries the
    /// client, method, route template, status and duration, and nothing private.
    @Test func jsonLogsAreOneObjectALine() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--log-format", "json"])
        let token = try await server.register(
            "Ann Lee", email: "ann@example.org", password: "secret words here")
        #expect(try await server.call("GET", "/v1/players/Ann%20Lee").status == 200)
        server.stop()
        let lines = server.log.split(separator: "\n")
        #expect(lines.count >= 3)
        var requests: [JSONObject] = []
        for line in lines {
            guard case .object(let object) = try JSONValue.parse(String(line)) else {
                Issue.record("not an object: \(line)")
                continue
            }
            #expect(object["time"]?.string?.hasSuffix("Z") == true && object["level"] != nil, "\(line)")
            if object["message"]?.string == "request" { requests.append(object) }
        }
        let signUp = try #require(requests.first { $0["route"]?.string == "/v1/accounts" })
        #expect(signUp["method"]?.string == "POST" && signUp["status"]?.string == "201")
        #expect(signUp["client"]?.string == "127.0.0.1" && signUp["duration_ms"]?.string != nil)
        #expect(
            requests.contains {
                $0["route"]?.string == "/v1/players/{username}" && $0["status"]?.string == "200"
            })
        for secret in ["ann@example.org", "secret words", token, "Ann Lee", "Ann%20Lee"] {
            #expect(!server.log.contains(secret), "\(secret) reached the log")
        }
    }

    /// SIGTERM: the requests in flight finish, then the PostgreSQL connections close in order (each
    /// sends PostgreSQL's Terminate message), then the process exits. A connection dropped without
    /// one is logged by the server at DEBUG1 as "unexpected EOF on client connection".
    @Test func aStoppedServiceClosesItsPostgreSQLConnectionsBeforeItExits() async throws {
        let cluster = try PostgresCluster()
        defer { try? cluster.stop() }
        for setting in ["log_min_messages = 'debug1'", "log_connections = on"] {
            let set = try cluster.psql("postgres", "ALTER SYSTEM SET \(setting)")
            #expect(set.status == 0, "\(set.stderr)")
        }
        #expect(try cluster.psql("postgres", "SELECT pg_reload_conf()").status == 0)
        let workspace = try Workspace(database: try cluster.database())
        let log = cluster.folder + "/server.log"
        let before = try Data(contentsOf: URL(fileURLWithPath: log)).count

        let server = try ServedVSH(workspace: workspace)
        // Players at once: the pool opens several connections.
        try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<8 {
                group.addTask { try await server.register("Stopper \(i)", email: "stopper\(i)@example.com") }
            }
            for try await token in group { #expect(!token.isEmpty) }
        }
        #expect(try await server.call("GET", "/v1/leaderboard").status == 200)
        // Only what the stop does is judged: on a loaded machine the pool may already have closed a
        // connection idle for a minute, which it does without a goodbye.
        let running = try Data(contentsOf: URL(fileURLWithPath: log))
        server.stop()
        #expect(server.process.terminationStatus == 0, "\(server.log)")

        let served = String(decoding: running.dropFirst(before), as: UTF8.self)
        let opened = served.components(separatedBy: "connection authorized: user=postgres").count - 1
        #expect(opened >= 2, "the service opened \(opened) connections")
        let after = String(
            decoding: try Data(contentsOf: URL(fileURLWithPath: log)).dropFirst(running.count), as: UTF8.self)
        let dropped = after.components(separatedBy: "unexpected EOF on client connection").count - 1
        #expect(dropped == 0, "\(dropped) of \(opened) connections dropped without a goodbye: \(after)")
    }

    /// The README's way to an event: the example nginx site shipped in deploy/ (names, certificate
    /// and ports filled in as an operator would) in front of `vsh serve --trust-proxy 127.0.0.1/32`.
    /// Real nginx, a certificate the client verifies, and a client on another loopback address
    /// (127.0.0.3) so that the address vsh sees through the proxy is told apart from the proxy's.
    @Test func theExampleNginxSiteServesVshOverHTTPSWithTheClientsAddress() async throws {
        let nginx = "/usr/sbin/nginx"
        try #require(
            FileManager.default.isExecutableFile(atPath: nginx),
            "nginx is missing (make test installs nginx-light)")
        let workspace = try Workspace()
        let folder = workspace.root.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (certificate, key) = try selfSignedCertificate(in: folder)
        let server = try ServedVSH(workspace: workspace, extra: ["--trust-proxy", "127.0.0.1/32"])
        defer { server.stop() }
        let (plain, secure) = (try TestSupport.freePort(), try TestSupport.freePort())

        var site = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("deploy/nginx-site.conf"),
            encoding: .utf8)
        for (shipped, mine) in [
            ("listen 80;", "listen 127.0.0.1:\(plain);"),
            ("listen 443 ssl http2;", "listen 127.0.0.1:\(secure) ssl http2;"),
            ("/etc/letsencrypt/live/hunt.example.org/fullchain.pem", certificate),
            ("/etc/letsencrypt/live/hunt.example.org/privkey.pem", key),
            ("http://127.0.0.1:8080", "http://127.0.0.1:\(server.port)"),
            ("hunt.example.org", "localhost"),
        ] {
            #expect(site.contains(shipped), "the shipped site no longer has \(shipped)")
            site = site.replacingOccurrences(of: shipped, with: mine)
        }
        let sitePath = folder.appendingPathComponent("site.conf").path
        try site.write(toFile: sitePath, atomically: true, encoding: .utf8)
        // What Debian's /etc/nginx/nginx.conf provides around a site, in the test's own folder.
        let p = folder.path
        let main = """
            user root; worker_processes 1; pid \(p)/nginx.pid; error_log \(p)/error.log;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(p)/body; proxy_temp_path \(p)/proxy; fastcgi_temp_path \(p)/fastcgi;
                uwsgi_temp_path \(p)/uwsgi; scgi_temp_path \(p)/scgi;
                include \(sitePath);
            }
            """
        try main.write(toFile: p + "/nginx.conf", atomically: true, encoding: .utf8)
        let check = try tool(nginx, ["-t", "-e", p + "/error.log", "-p", p, "-c", p + "/nginx.conf"])
        #expect(check.status == 0, "nginx -t: \(check.stderr)")
        try #require(check.status == 0)
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: nginx)
        proxy.arguments = ["-e", p + "/error.log", "-p", p, "-c", p + "/nginx.conf", "-g", "daemon off;"]
        proxy.standardOutput = FileHandle.nullDevice
        proxy.standardError = FileHandle.nullDevice
        try proxy.run()
        defer {
            // nginx's own stop (its master ends its workers); SIGKILL if it is still there.
            _ = try? tool(nginx, ["-e", p + "/error.log", "-p", p, "-c", p + "/nginx.conf", "-s", "stop"])
            for _ in 0..<100 where proxy.isRunning { usleep(50_000) }
            if proxy.isRunning { kill(proxy.processIdentifier, SIGKILL) }
            proxy.waitUntilExit()
        }
        var listening = false
        for _ in 0..<200 where !listening {
            listening = TestSupport.accepts(port: secure)
            if !listening { usleep(50_000) }
        }
        try #require(listening, "nginx did not listen")

        let script = """
            import http.client, json, ssl, sys
            secure, plain, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
            context = ssl.create_default_context(cafile=ca)
            answers = {}
            def ask(name, method, path, body=None, headers={}, port=secure, tls=True):
                if tls:
                    c = http.client.HTTPSConnection('localhost', port, context=context, source_address=('127.0.0.3', 0), timeout=30)
                else:
                    c = http.client.HTTPConnection('localhost', port, source_address=('127.0.0.3', 0), timeout=30)
                c.request(method, path, body=body, headers=headers)
                r = c.getresponse()
                answers[name] = {'status': r.status, 'location': r.getheader('Location'), 'body': r.read().decode('utf-8', 'replace')[:200]}
            account = json.dumps({'username': 'Nell Gwyn', 'email': 'nell@example.com', 'password': 'tumbling dice'})
            ask('register', 'POST', '/v1/accounts', account, {'Content-Type': 'application/json', 'Forwarded': 'for=203.0.113.66', 'X-Forwarded-For': '203.0.113.66'})
            ask('board', 'GET', '/v1/leaderboard')
            ask('metrics', 'GET', '/metrics')
            ask('redirect', 'GET', '/hunts', port=plain, tls=False)
            try:
                ask('huge', 'POST', '/v1/checkins', b'x' * (70 << 20), {'Content-Type': 'multipart/form-data; boundary=x'})
            except (ConnectionError, OSError) as e:
                answers['huge'] = {'status': 'reset', 'error': str(e)}
            print(json.dumps(answers))
            """
        let run = try tool("python3", ["-c", script, "\(secure)", "\(plain)", certificate])
        let answers = try json(run.stdout)
        #expect(answers["register"]?["status"]?.int == 201, "\(run.stdout) \(run.stderr)")
        #expect(answers["board"]?["status"]?.int == 200)
        // Metrics are never on the public side.
        #expect(answers["metrics"]?["status"]?.int == 404)
        #expect(answers["redirect"]?["status"]?.int == 301)
        #expect(answers["redirect"]?["location"]?.string == "https://localhost/hunts")
        // nginx's own cap (65m) answers a 70 MiB upload before vsh sees it.
        #expect(
            answers["huge"]?["status"]?.int == 413 || answers["huge"]?["status"]?.string == "reset",
            "\(run.stdout)")
        // vsh saw the client's address as nginx put it in Forwarded, not the proxy's and not the forged one.
        #expect(server.log.contains("127.0.0.3 POST /v1/accounts 201"), "\(server.log.suffix(800))")
        #expect(server.log.contains("127.0.0.3 GET /v1/leaderboard 200"))
        #expect(!server.log.contains("203.0.113.66"))
    }
}

/// A flag set by one task and read by others.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    var value: Bool {
        get { lock.withLock { set } }
        set { lock.withLock { set = newValue } }
    }
}
