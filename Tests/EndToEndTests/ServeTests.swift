import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `vsh serve` as a process: the listening line, real HTTP on a free loopback port, SIGTERM.
@Suite struct ServeTests {
    @Test func servesOnAFreePortAndStopsCleanlyOnSIGTERM() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace)
        defer { server.stop() }
        #expect(server.port > 0 && server.port != 8080)
        let process = server.process
        let base = server.base
        let (health, healthResponse) = try await URLSession.shared.data(from: URL(string: base + "/healthz")!)
        #expect((healthResponse as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: health, as: UTF8.self) == #"{"status":"ok"}"#)
        var request = URLRequest(url: URL(string: base + "/v1/sessions")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"username":"Nobody","password":"secret words here"}"#.utf8)
        let (_, denied) = try await URLSession.shared.data(for: request)
        #expect((denied as? HTTPURLResponse)?.statusCode == 401)
        #expect(
            (denied as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type")
                == "application/problem+json")

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let log = server.log
        // Logs name the route template, never the password or the body.
        #expect(log.contains("/v1/sessions"))
        #expect(!log.contains("secret words"))
    }
}

/// A session's last-use stamp waits for the next write, not holding its request; a server stopped
/// before one comes writes it as it stops.
@Suite struct LastUseStampTests {
    @Test func aStoppingServerWritesTheStampsThatWait() async throws {
        let workspace = try Workspace()
        let first = try ServedVSH(workspace: workspace, extra: ["--now", "2026-11-21T19:00:00Z"])
        let token = try await first.register("Ann Lee", email: "ann@example.org")
        first.stop()
        // An hour later: the session's stamp is stale, and this request stamps it.
        let later = try ServedVSH(workspace: workspace, extra: ["--now", "2026-11-21T20:00:00Z"])
        #expect(try await later.call("GET", "/v1/me", token: token).status == 200)
        later.stop()
        let stamp = try TestSupport.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys\nprint(sqlite3.connect(sys.argv[1]).execute("
                    + "'SELECT last_used_at FROM sessions').fetchone()[0])",
                workspace.db,
            ]
        ).stdout
        #expect(stamp == "2026-11-21T20:00:00Z\n")
    }
}

/// The README's curl session (docs/curl-session.sh), run as written against the real binary: what a
/// player with only curl can do, every step a 2xx.
@Suite struct CurlSessionTests {
    @Test func theReadmesCurlSessionWorksAsWritten() async throws {
        let workspace = try Workspace()
        // A minute after the session's fix (19:31): fresh, as a phone's upload is.
        let server = try ServedVSH(workspace: workspace, extra: ["--now", "2026-11-21T19:32:00Z"])
        defer { server.stop() }
        let run = try TestSupport.run(
            "/bin/sh", [TestSupport.packageRoot.appendingPathComponent("docs/curl-session.sh").path],
            environment: ["BASE": server.base], currentDirectory: TestSupport.packageRoot)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let checkIns = lines.filter { $0.hasPrefix(#"{"verdict""#) }
        #expect(checkIns.count == 2)
        #expect(checkIns.first?.hasPrefix(#"{"verdict":"accepted","id":1,"#) == true)
        #expect(Set(checkIns).count == 1, "the retry got another answer")
        #expect(lines.contains { $0.hasPrefix("image/jpeg, ") && $0.hasSuffix(" bytes") })
        #expect(lines.last == "the token afterwards: 401")

        // The picture kept for the profile: exiftool finds no GPS and no EXIF in it.
        let (avatar, _) = try await URLSession.shared.data(
            from: URL(string: server.base + "/v1/players/Eve%20Park/avatar")!)
        let file = workspace.root.appendingPathComponent("avatar.jpg")
        try avatar.write(to: file)
        let tags = try TestSupport.run("/usr/bin/env", ["exiftool", "-json", "-a", "-G1", file.path])
        #expect(tags.status == 0)
        #expect(!tags.stdout.contains("GPS"), "\(tags.stdout)")
        #expect(!tags.stdout.contains("[EXIF"), "\(tags.stdout)")
        #expect(!tags.stdout.contains("Apple"), "\(tags.stdout)")
        #expect(tags.stdout.contains("\"File:ImageWidth\": 256"))
        // One check-in in the database: the retry recorded nothing.
        #expect(try workspace.vsh(["profile", "Eve Park", "--json"]).stdout.contains(#""stops_visited":1"#))
    }
}

/// `vsh serve --port 0` on a workspace, running until `stop()`: its port, once it listens. Shared
/// by concurrent requests (its stored properties are constants; `Process` is not marked Sendable).
final class ServedVSH: @unchecked Sendable {
    let process = Process()
    /// Standard error goes to a file: a pipe nobody reads fills up, and the server's log lines then block it.
    let logPath: String
    let port: Int
    /// `http`, or `https` for a server started with `--tls-cert`.
    let scheme: String
    var base: String { "\(scheme)://127.0.0.1:\(port)" }

    init(workspace: Workspace, extra: [String] = [], environment: [String: String] = [:]) throws {
        process.executableURL = TestSupport.productsDirectory.appendingPathComponent("vsh")
        process.arguments =
            ["serve", "--port", "0", "--db", workspace.db, "--hunts", workspace.hunts] + extra
        var env = ProcessInfo.processInfo.environment
        env["TMPDIR"] = workspace.root.path
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        process.standardOutput = out
        logPath = workspace.root.appendingPathComponent("serve.log").path
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        // The one line, once it accepts connections.
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let match = text.firstMatch(of: #/^listening on (https?)://127\.0\.0\.1:(\d+)\n$/#),
            let port = Int(match.2)
        else {
            kill(process.processIdentifier, SIGKILL)
            throw FixtureError("vsh serve said: \(text)")
        }
        self.port = port
        self.scheme = String(match.1)
    }

    /// One request: status, body and headers.
    @discardableResult
    func call(
        _ method: String, _ path: String, json body: String? = nil, token: String? = nil,
        headers: [String: String] = [:], data: Data? = nil
    ) async throws -> (status: Int, body: String, headers: [String: String]) {
        var request = URLRequest(url: URL(string: base + path)!)
        request.httpMethod = method
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        if let data { request.httpBody = data }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (answer, response) = try await URLSession.shared.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FixtureError("not HTTP") }
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return (http.statusCode, String(decoding: answer, as: UTF8.self), fields)
    }

    /// Registers a player and returns their token.
    func register(_ name: String, email: String, password: String = "tumbling dice") async throws -> String {
        let answer = try await call(
            "POST", "/v1/accounts",
            json: #"{"username":"\#(name)","email":"\#(email)","password":"\#(password)"}"#)
        guard answer.status == 201, case .string(let token)? = try json(answer.body)["token"] else {
            throw FixtureError("registration failed: \(answer.status) \(answer.body)")
        }
        return token
    }

    /// What the server logged so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Stops a server still running: SIGTERM (it cleans up after itself), then SIGKILL if it hangs.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        let watched = process
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) {
            if watched.isRunning { kill(watched.processIdentifier, SIGKILL) }
        }
        process.waitUntilExit()
    }
}
