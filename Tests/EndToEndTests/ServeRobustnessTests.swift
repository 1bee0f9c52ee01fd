import Foundation
import Testing
import VSHCore
import VSHSpatiaLite
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `vsh serve` when things go wrong around it: a database locked by another process, and SIGTERM
/// while a photo is still arriving.
@Suite struct ServeRobustnessTests {
    /// Another process holds the write lock: a check-in waits out the busy timeout and gets 503 with
    /// Retry-After, never a hung request; once the lock is gone the same request succeeds.
    @Test func aLockedDatabaseGives503WithRetryAfter() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(
            workspace: workspace, extra: ["--now", fixtureNow], environment: ["VSH_BUSY_TIMEOUT": "1"])
        defer { server.stop() }
        let token = try await server.register("Ann", email: "ann@example.org")
        let photo = try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg")))
        let (body, type) = Self.multipart(photo: photo)

        // A writer in another process (Python's sqlite3), holding its transaction open.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys, time
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            db.execute('BEGIN IMMEDIATE')
            print('locked', flush=True)
            sys.stdin.read()
            db.execute('ROLLBACK')
            """,
            workspace.db,
        ]
        let toHolder = Pipe()
        let fromHolder = Pipe()
        holder.standardInput = toHolder
        holder.standardOutput = fromHolder
        try holder.run()
        // Its line, once it holds the lock (read to the line's end: a pipe may deliver it in pieces).
        var said = Data()
        while !said.contains(0x0A) {
            let chunk = fromHolder.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            said.append(chunk)
        }
        #expect(String(decoding: said, as: UTF8.self) == "locked\n")
        let busy = try await server.call(
            "POST", "/v1/checkins", token: token, headers: ["Content-Type": type], data: body)
        #expect(busy.status == 503, "\(busy.body)")
        #expect(busy.headers["retry-after"] == "1")
        #expect(busy.headers["content-type"] == "application/problem+json")
        try toHolder.fileHandleForWriting.close()
        holder.waitUntilExit()

        let done = try await server.call(
            "POST", "/v1/checkins", token: token, headers: ["Content-Type": type], data: body)
        #expect(done.status == 201, "\(done.body)")
        #expect(try json(done.body)["verdict"]?.string == "accepted")
        server.stop()
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    /// SIGTERM while an upload is half sent: the server cancels it at its shutdown bound (7 s; docs/api.md
    /// asks for an exit within 10 s), exits 0, records nothing of it and leaves no temporary file behind.
    @Test func sigtermMidUploadRecordsNothingHalf() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        let token = try await server.register("Ann", email: "ann@example.org")
        // Padded past what an upload keeps in memory, so that its first half goes to a temporary file.
        let photo =
            try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath("sign-inside.jpg")))
            + Data(repeating: 0, count: 3 * 256 * 1024)
        let (body, type) = Self.multipart(photo: photo)

        // A raw connection: the headers and half the body, then nothing.
        let connection = try RawConnection(port: server.port)
        let half = Self.head(token: token, type: type, length: body.count) + body.prefix(body.count / 2)
        try connection.send(bytes: half)
        // The upload has started: its temporary file exists.
        var uploading = false
        for _ in 0..<100 where !uploading {
            uploading = Self.uploads(in: workspace.root).contains { !$0.isEmpty }
            if !uploading { usleep(50_000) }
        }
        #expect(uploading, "no upload in progress")

        server.stop()  // SIGTERM; SIGKILL only if it still runs 30 s later
        connection.close()  // held open until the server stopped: the shutdown cut the upload
        // It stopped by itself (the helper's watchdog would SIGKILL it): the request still waiting
        // for its body was cut at the shutdown bound and refused as an incomplete form.
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
        #expect(server.log.contains("POST /v1/checkins 400"), "\(server.log)")
        #expect(!server.log.contains("POST /v1/checkins 201"))
        #expect(Self.uploads(in: workspace.root).isEmpty, "an upload folder was left behind")
        let store = try await SpatiaLiteStore.open(path: workspace.db, hunts: nil)
        #expect(try await store.players().first?.checkIns == 0)
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    /// A phone photo is written once, where it is kept: while a small one arrives nothing is on disk
    /// (it is held in memory), while a large one arrives it is in a temporary file; both are then
    /// accepted, and no temporary file is left.
    @Test func aSmallPhotoIsHeldInMemoryALargeOneOnDisk() async throws {
        let workspace = try Workspace()
        let server = try ServedVSH(workspace: workspace, extra: ["--now", fixtureNow])
        defer { server.stop() }
        // Two photos taken at the sign; bytes after a JPEG's end are not the picture.
        func photo(_ file: String, padding: Int) throws -> Data {
            try Data(contentsOf: URL(fileURLWithPath: workspace.fixturePath(file)))
                + Data(repeating: 0, count: padding)
        }
        for (name, photo, onDisk) in [
            ("Ann", try photo("sign-inside.jpg", padding: 100_000), false),
            ("Bo", try photo("sign-vertex.jpg", padding: 3 * 256 * 1024), true),
        ] {
            let token = try await server.register(name, email: "\(name.lowercased())@example.org")
            let (body, type) = Self.multipart(photo: photo)
            let connection = try RawConnection(port: server.port)
            try connection.send(
                bytes: Self.head(token: token, type: type, length: body.count) + body.prefix(body.count - 100)
            )
            // All but the last 100 bytes are in: a large photo's temporary file has appeared by
            // the time the service has read them; a small one's never does.
            var seen = false
            for _ in 0..<40 where !seen {
                seen = Self.uploads(in: workspace.root).contains { !$0.isEmpty }
                if !seen { usleep(50_000) }
            }
            #expect(seen == onDisk, "\(name): a temporary file \(seen ? "was" : "was not") written")
            try connection.send(bytes: body.suffix(100))
            let text = connection.readUntilClosed(seconds: 60).text
            #expect(
                text.hasPrefix("HTTP/1.1 201") && text.contains(#""verdict":"accepted""#), "\(name): \(text)")
        }
        #expect(
            Self.uploads(in: workspace.root).allSatisfy { $0.isEmpty }, "a temporary file was left behind")
        #expect(try workspace.vsh(["doctor"]).status == 0)
    }

    /// The head of a check-in request whose body is `length` bytes (the connection closes after it).
    static func head(token: String, type: String, length: Int) -> Data {
        Data(
            ("POST /v1/checkins HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: \(type)\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n").utf8)
    }

    /// The upload folders under a workspace (vsh serve makes one in its TMPDIR) and what they hold.
    static func uploads(in root: URL) -> [[String]] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { $0.hasPrefix("vsh-uploads-") }
            .map {
                (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent($0).path))
                    ?? []
            }
    }

    /// A check-in form with one photo part: its bytes and content type.
    static func multipart(photo: Data) -> (Data, String) {
        let boundary = "vsh-robustness"
        var body = Data(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                .utf8)
        body += photo
        body += Data("\r\n--\(boundary)--\r\n".utf8)
        return (body, "multipart/form-data; boundary=\(boundary)")
    }
}
