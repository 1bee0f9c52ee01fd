import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// E-mail through a real SMTP conversation: `vsh serve --smtp` against aiosmtpd (PyPI) on
/// loopback, which keeps every message it receives in a maildir the test reads.
@Suite struct MailTests {
    @Test func passwordResetsAndTheCollageArriveByEmail() async throws {
        let workspace = try Workspace()
        // The check-ins below are ten minutes apart against a clock that stands still: this hunt's
        // organiser lets device fixes arrive up to two hours late before a moderator must look.
        let downtown = URL(fileURLWithPath: workspace.hunts).appendingPathComponent(
            "downtown-fremont.geojson")
        let text = try String(contentsOf: downtown, encoding: .utf8)
        try text.replacingOccurrences(
            of: #""difficulty": "easy","#, with: #""difficulty": "easy", "max_fix_age_s": 7200,"#
        )
        .write(to: downtown, atomically: true, encoding: .utf8)
        #expect(try String(contentsOf: downtown, encoding: .utf8).contains("max_fix_age_s"))
        let sink = try SMTPSink(folder: workspace.root.appendingPathComponent("mail"))
        defer { sink.stop() }
        let server = try ServedVSH(
            workspace: workspace, extra: ["--smtp", "smtp://127.0.0.1:\(sink.port)", "--now", fixtureNow])
        defer { server.stop() }
        let token = try await server.register("Ann Lee", email: "ann@example.org")

        // The same answer for an address nobody gave; a message only for the real one.
        let known = try await server.call(
            "POST", "/v1/password-resets", json: #"{"email":"ANN@example.org"}"#)
        let unknown = try await server.call(
            "POST", "/v1/password-resets", json: #"{"email":"nobody@example.org"}"#)
        #expect(known.status == 202 && unknown.status == 202 && known.body == unknown.body)
        let reset = try sink.waitForMessages(1)[0]
        #expect(reset.to == "ann@example.org")
        #expect(reset.subject == "Your vsh password")
        let link = try #require(reset.text.firstMatch(of: #/reset-password\?token=([0-9a-f]{64})/#))
        let resetToken = String(link.1)
        #expect(!server.log.contains(resetToken))

        #expect(
            try await server.call("POST", "/v1/password-resets/\(resetToken)", json: #"{"password":"short"}"#)
                .status == 422)
        #expect(
            try await server.call(
                "POST", "/v1/password-resets/\(resetToken)", json: #"{"password":"a new password"}"#
            )
            .status == 204)
        // Single use; the old session and the old password are gone; the new one works.
        #expect(
            try await server.call(
                "POST", "/v1/password-resets/\(resetToken)", json: #"{"password":"another one!"}"#
            )
            .status == 404)
        #expect(try await server.call("GET", "/v1/me", token: token).status == 401)
        let signIn = #"{"username":"Ann Lee","password":"%@"}"#
        #expect(
            try await server.call(
                "POST", "/v1/sessions", json: signIn.replacingOccurrences(of: "%@", with: "tumbling dice")
            )
            .status == 401)
        let session = try await server.call(
            "POST", "/v1/sessions", json: signIn.replacingOccurrences(of: "%@", with: "a new password"))
        #expect(session.status == 201)
        guard case .string(let fresh)? = try json(session.body)["token"] else {
            throw FixtureError("no token")
        }

        // Completing Downtown & Fremont (device fixes ten minutes apart, at each stop's landmark)
        // mails the collage.
        let stops = try Landmark.all().filter { $0.hunt == "downtown-fremont" }
        #expect(stops.count == 7)
        let now = RFC3339.parse(fixtureNow)!
        var verdicts: [String] = []
        for (i, stop) in stops.enumerated() {
            let time = RFC3339.format(now.addingTimeInterval(Double(i - stops.count) * 600))
            let boundary = "vsh-mail-test"
            var body = ""
            for (name, value) in [
                ("lat", "\(stop.latitude)"), ("lon", "\(stop.longitude)"), ("accuracy_m", "5"),
                ("fix_time", time),
            ] {
                body +=
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
            }
            body += "--\(boundary)--\r\n"
            let answer = try await server.call(
                "POST", "/v1/checkins", token: fresh,
                headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], data: Data(body.utf8))
            verdicts.append((try json(answer.body)["verdict"]?.string) ?? "\(answer.status) \(answer.body)")
        }
        #expect(verdicts == Array(repeating: "accepted", count: 7))
        let messages = try sink.waitForMessages(2)
        #expect(messages.count == 2)
        let collage = messages[1]
        #expect(collage.to == "ann@example.org")
        #expect(collage.subject == "You completed Downtown & Fremont!")
        let attachment = try #require(collage.attachment)
        #expect(attachment.type == "image/jpeg")
        let picture = try JSONValue.parse(
            Array(
                try TestSupport.run("/usr/bin/env", ["exiftool", "-json", "-ImageWidth", attachment.path])
                    .stdout.utf8))
        // Three tiles and their gaps across: 3 x 320 + 4 x 8 pixels.
        #expect(picture.array.first?["ImageWidth"] == .int(992))
        // Nothing of a player's position or address in the server's log.
        #expect(!server.log.contains("ann@example.org"))
        #expect(!server.log.contains(String(stops[0].latitude)))
    }
}

/// aiosmtpd on a free loopback port, keeping messages in a maildir.
final class SMTPSink {
    let process = Process()
    let port: Int
    let folder: URL

    struct Message {
        var to: String
        var subject: String
        var text: String
        var attachment: (path: String, type: String)?
    }

    init(folder: URL) throws {
        self.folder = folder
        port = try TestSupport.freePort()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox",
            folder.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once it accepts connections.
        for _ in 0..<200 {
            if TestSupport.accepts(port: port) { return }
            usleep(50_000)
        }
        process.terminate()
        throw FixtureError("aiosmtpd did not start (pip install aiosmtpd)")
    }

    /// The messages so far, oldest first, once there are at least `count` (or after 30 s).
    func waitForMessages(_ count: Int) throws -> [Message] {
        let new = folder.appendingPathComponent("new")
        for _ in 0..<600 {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: new.path)) ?? [])
            if names.count >= count {
                return try names.map { new.appendingPathComponent($0) }
                    .sorted {
                        try $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate!
                            < $1.resourceValues(forKeys: [.contentModificationDateKey])
                            .contentModificationDate!
                    }
                    .map(Self.read)
            }
            usleep(50_000)
        }
        throw FixtureError("fewer than \(count) messages arrived")
    }

    /// A message read with Python's own e-mail parser (MIME, base64, RFC 2047 subjects).
    static func read(_ file: URL) throws -> Message {
        let script = """
            import email, email.policy, json, sys
            m = email.message_from_binary_file(open(sys.argv[1], 'rb'), policy=email.policy.default)
            text = m.get_body(preferencelist=('plain',)).get_content()
            out = {'to': str(m['To']), 'subject': str(m['Subject']), 'text': text}
            for part in m.iter_attachments():
                path = sys.argv[1] + '.attachment'
                open(path, 'wb').write(part.get_payload(decode=True))
                out['attachment'] = {'path': path, 'type': part.get_content_type()}
            print(json.dumps(out))
            """
        let result = try TestSupport.run("/usr/bin/env", ["python3", "-c", script, file.path])
        guard result.status == 0, case .object(let m) = try JSONValue.parse(Array(result.stdout.utf8)) else {
            throw FixtureError("unreadable message: \(result.stderr)")
        }
        var message = Message(
            to: m["to"]?.string ?? "", subject: m["subject"]?.string ?? "", text: m["text"]?.string ?? "")
        if case .object(let a)? = m["attachment"], let path = a["path"]?.string, let type = a["type"]?.string
        {
            message.attachment = (path, type)
        }
        return message
    }

    /// aiosmtpd does not stop on SIGTERM: SIGKILL (it holds nothing the test still needs).
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
