import Foundation
import Testing
import VSHCore
import VSHTestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Two `vsh serve` processes on one PostgreSQL + PostGIS database behave as one service: the rules
/// that read earlier check-ins (a photo's, a player's) see what the other instance committed.
@Suite struct TwoInstanceTests {
    /// Two instances on one fresh PostGIS database, each with its own folder and log.
    static func twoInstances(extra: [String] = []) throws -> (Workspace, ServedVSH, ServedVSH) {
        let url = try PostgresCluster.shared().database()
        let a = try Workspace(database: url)
        let b = try Workspace(database: url)
        // Device fixes spread over the afternoon count as fresh (the walk is submitted at 20:00).
        for workspace in [a, b] {
            for hunt in ["strip-classics", "downtown-fremont"] {
                let path = workspace.hunts + "/\(hunt).geojson"
                let text = try String(contentsOfFile: path, encoding: .utf8)
                try workspace.write(
                    "\(hunt).geojson",
                    text.replacingOccurrences(
                        of: #""max_photo_age_s": 86400,"#,
                        with: #""max_photo_age_s": 86400, "max_fix_age_s": 86400,"#))
            }
        }
        let limits = ["--now", fixtureNow, "--checkins-per-minute", "100000"] + extra
        let first = try ServedVSH(workspace: a, extra: limits)
        let second = try ServedVSH(workspace: b, extra: limits)
        return (a, first, second)
    }

    /// Account limits are counted in the database, so two instances share one: twelve wrong
    /// passwords for one name from one address, six through each instance at once, meet the
    /// per-name-and-address limit of ten (each instance alone would have let its six through).
    @Test func accountLimitsAreSharedByTheInstances() async throws {
        let (_, first, second) = try Self.twoInstances()
        defer {
            first.stop()
            second.stop()
        }
        _ = try await first.register("Ann Lee", email: "ann@example.org")
        #expect(
            try await second.call(
                "POST", "/v1/sessions", json: #"{"username":"Ann Lee","password":"tumbling dice"}"#
            ).status == 201)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 {
                let server = index % 2 == 0 ? first : second
                group.addTask {
                    try await server.call(
                        "POST", "/v1/sessions", json: #"{"username":"Ann Lee","password":"guess \#(index)"}"#
                    ).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 401 || $0 == 429 }, "\(statuses)")
        // At least one refused (two, unless a token refilled meanwhile); apart, none would be.
        #expect(statuses.contains(429), "\(statuses)")
    }

    static func checkIn(
        _ base: String, token: String, session: URLSession, fields: [(String, String)] = [],
        photo: Data? = nil
    ) async throws -> (status: Int, answer: JSONValue?) {
        let boundary = "b\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body.append(
                Data(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
                        .utf8))
        }
        if let photo {
            body.append(
                Data(
                    "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n"
                        .utf8))
            body.append(photo)
            body.append(Data("\r\n".utf8))
        }
        body.append(Data("--\(boundary)--\r\n".utf8))
        var request = URLRequest(url: URL(string: base + "/v1/checkins")!)
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        return (
            (response as? HTTPURLResponse)?.statusCode ?? 0, try? json(String(decoding: data, as: UTF8.self))
        )
    }

    static func outcome(_ answer: JSONValue?, rule: String) -> String? {
        guard case .array(let rules)? = answer?["rules"] else { return nil }
        for case .object(let r) in rules where r["rule"] == .string(rule) {
            if case .string(let result)? = r["result"] { return result }
        }
        return nil
    }

    /// Eight players send the same photo at once, four through each instance, for five photos:
    /// each photo is accepted as new exactly once, every other copy fails `unique_photo`.
    @Test func onePhotoRacedThroughBothInstancesCountsOnce() async throws {
        let (workspace, a, b) = try Self.twoInstances()
        defer {
            a.stop()
            b.stop()
        }
        var players: [(base: String, token: String)] = []
        for n in 0..<8 {
            let server = n % 2 == 0 ? a : b
            players.append((server.base, try await server.register("Racer \(n)", email: "r\(n)@example.org")))
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        let session = URLSession(configuration: configuration)
        let photos = [
            "sign-inside.jpg", "sign-vertex.jpg", "sphere-camera-clock.jpg", "sign-near.jpg",
            "poor-accuracy.jpg",
        ]
        for name in photos {
            let bytes = try Data(
                contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/photos/\(name)"))
            let answers = try await withThrowingTaskGroup(of: (status: Int, answer: JSONValue?).self) {
                group in
                for player in players {
                    group.addTask {
                        try await Self.checkIn(
                            player.base, token: player.token, session: session, photo: bytes)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 8)
            #expect(answers.allSatisfy { $0.status == 201 }, "\(name): \(answers.map(\.status))")
            let outcomes = answers.map { Self.outcome($0.answer, rule: "unique_photo") }
            // One copy is first. When its check-in stands, it survives (passed, or sent to review
            // where the fixture looks like an earlier one of another player) and the 7 others fail.
            // When that first check-in was rejected on another rule (its player had visited the
            // stop already), the others go to a moderator instead: never two copies passed.
            let passed = outcomes.filter { $0 == "passed" }.count
            let review = outcomes.filter { $0 == "needs_review" }.count
            let failed = outcomes.filter { $0 == "failed" }.count
            #expect(passed <= 1 && passed + review + failed == 8, "\(name): \(outcomes)")
            #expect(failed == 7 || (failed == 0 && review >= 7), "\(name): \(outcomes)")
        }
        a.stop()
        b.stop()
        #expect(a.process.terminationStatus == 0)
        #expect(b.process.terminationStatus == 0)
        let doctor = try workspace.vsh(["doctor"])
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        #expect(doctor.stdout.contains("40 check-ins"), "\(doctor.stdout)")
    }

    /// One check-in answer, as the test keeps it.
    struct Answer: Sendable {
        var player: Int
        var step: Int
        var status: Int
        var id: Int?
        /// Stop points only.
        var points: Int
        /// Stop points plus badges and bonuses.
        var credited: Int
    }

    /// Twelve players check in along the landmarks through both instances at once: players 0–7
    /// from one phone that alternates between the instances, players 8–11 from two phones, one on
    /// each instance, sending the same stop at the same moment. Every answer is recorded once
    /// under its player; a stop sent through both instances at once is credited once; both
    /// instances show the same board; players 0–7 hold exactly what their answers credited; and
    /// the totals equal a rescore (`vsh doctor`).
    @Test func playersCheckingInThroughBothInstancesGetExactTotals() async throws {
        let (workspace, a, b) = try Self.twoInstances()
        defer {
            a.stop()
            b.stop()
        }
        var tokens: [String] = []
        for n in 0..<12 {
            tokens.append(try await (n % 2 == 0 ? a : b).register("Walker \(n)", email: "w\(n)@example.org"))
        }
        let places = try ConcurrencyTests.landmarks()
        let start = try #require(RFC3339.parse("2026-11-21T13:50:00Z"))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 16
        let session = URLSession(configuration: configuration)
        let bases = [a.base, b.base]
        let answers = try await withThrowingTaskGroup(of: [Answer].self) { group in
            for (player, token) in tokens.enumerated() {
                for phone in 0..<(player < 8 ? 1 : 2) {
                    group.addTask {
                        var mine: [Answer] = []
                        for n in 0..<20 {
                            let place = places[(n + player) % places.count].split(separator: ",")
                            let time = RFC3339.format(
                                start.addingTimeInterval(Double(n) * 200 + Double(player)))
                            let answer = try await Self.checkIn(
                                bases[player < 8 ? (n + player) % 2 : phone], token: token, session: session,
                                fields: [
                                    ("lat", String(place[0])), ("lon", String(place[1])), ("accuracy_m", "8"),
                                    ("fix_time", time),
                                ])
                            let points = answer.answer?["points"]?.int ?? 0
                            var credited = points
                            if case .array(let awards)? = answer.answer?["awards"] {
                                credited += awards.compactMap { $0["points"]?.int }.reduce(0, +)
                            }
                            mine.append(
                                Answer(
                                    player: player, step: n, status: answer.status,
                                    id: answer.answer?["id"]?.int,
                                    points: points, credited: credited))
                        }
                        return mine
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let expected = 8 * 20 + 4 * 40
        #expect(answers.count == expected)
        #expect(answers.allSatisfy { $0.status == 201 }, "\(Set(answers.map(\.status)))")
        let ids = answers.compactMap(\.id)
        #expect(ids.count == answers.count)
        #expect(Set(ids).count == ids.count, "an id answered twice")
        // A stop sent from both phones at once earns its points once.
        for player in 8..<12 {
            for step in 0..<20 {
                let scored = answers.filter { $0.player == player && $0.step == step && $0.points > 0 }
                #expect(scored.count <= 1, "Walker \(player), step \(step): credited \(scored.count) times")
            }
            #expect(answers.contains { $0.player == player && $0.points > 0 })
        }
        // Both instances answer the same board (after the read cache's second).
        try await Task.sleep(for: .seconds(1.2))
        let boardA = try await a.call("GET", "/v1/leaderboard")
        let boardB = try await b.call("GET", "/v1/leaderboard")
        #expect(boardA.status == 200)
        #expect(boardA.body == boardB.body)
        guard case .array(let rows) = try json(boardA.body) else {
            Issue.record("no leaderboard rows: \(boardA.body)")
            return
        }
        #expect(rows.count == 12)
        for row in rows {
            guard case .string(let name)? = row["player"], let points = row["points"]?.int,
                let player = Int(name.split(separator: " ").last ?? "")
            else {
                Issue.record("unreadable row \(row)")
                continue
            }
            guard player < 8 else { continue }
            let answered = answers.filter { $0.player == player }.map(\.credited).reduce(0, +)
            #expect(points == answered && answered > 0, "\(name): board \(points), answered \(answered)")
        }
        a.stop()
        b.stop()
        let doctor = try workspace.vsh(["doctor"])
        #expect(doctor.status == 0, "\(doctor.stdout)\(doctor.stderr)")
        #expect(doctor.stdout.contains("\(answers.count) check-ins"), "\(doctor.stdout)")
    }

    /// A page listening to one instance hears what happens on another at once (PostgreSQL's LISTEN
    /// and NOTIFY): an announcement made on the first, a check-in recorded there and the change it
    /// makes; and the second's cached leaderboard is emptied, so the page reads the new board.
    @Test func eventsReachPagesOnEveryInstance() async throws {
        let (a, first, second) = try Self.twoInstances()
        defer {
            first.stop()
            second.stop()
        }
        let ann = try await first.register("Ann Lee", email: "ann@example.org")
        _ = try await first.register("Mo Kent", email: "mo@example.org")
        #expect(try a.vsh(["player", "role", "Mo Kent", "organiser"]).status == 0)
        let mo = try #require(
            try json(
                try await first.call(
                    "POST", "/v1/sessions", json: #"{"username": "Mo Kent", "password": "tumbling dice"}"#
                ).body)["token"]?.string)
        // The board as the second instance has it cached: Ann not on it yet.
        #expect(!(try await second.call("GET", "/v1/leaderboard").body.contains("Ann Lee")))

        let stream = try RawConnection(port: second.port)
        defer { stream.close() }
        try stream.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        #expect(stream.readHead(seconds: 10).hasPrefix("HTTP/1.1 200"))
        _ = stream.readUntilClosed(seconds: 1)
        let made = try await first.call(
            "POST", "/v1/announcements", json: #"{"text": "Lunch at the café at 1"}"#, token: mo)
        #expect(made.status == 201, "\(made.body)")
        let announcement = try json(made.body)["id"]?.int ?? -1
        let visit = try await Self.checkIn(
            first.base, token: ann, session: .shared,
            fields: [("lat", "36.0821"), ("lon", "-115.1727"), ("accuracy_m", "8"), ("fix_time", fixtureNow)])
        #expect(visit.answer?["verdict"]?.string == "accepted", "\(visit.answer.map(\.compactText) ?? "")")
        let checkIn = visit.answer?["id"]?.int ?? -1
        let heard = stream.readUntilClosed(seconds: 3).text
        #expect(heard.contains("event: announcement\ndata: \(announcement)\n"), "\(heard)")
        #expect(heard.contains("event: checkin\ndata: \(checkIn)\n"), "\(heard)")
        #expect(heard.contains("event: change\n"), "\(heard)")
        #expect(!heard.contains("café") && !heard.contains("Ann"), "ids only: \(heard)")
        #expect(try await second.call("GET", "/v1/leaderboard").body.contains("Ann Lee"))
    }
}
