import Foundation
import Testing
import VSHCore
import VSHEngine
import VSHHost
import VSHMemoryStore
import VSHPostGIS
import VSHSpatiaLite
import VSHTestSupport

/// The shipped hunts, their landmarks, and a day of check-ins, replayed on any `LeagueStore`.
enum Scenario {
    static let huntsFolder = TestSupport.freePacedHunts.path

    /// Landmark coordinates by stop id (Fixtures/landmarks.csv).
    static let landmarks: [String: Coordinate] = landmarkRows.mapValues(\.position)

    /// The hunt of each landmark.
    static let huntOf: [String: String] = landmarkRows.mapValues(\.hunt)

    /// `Fixtures/landmarks.csv` by stop: its hunt and position.
    static let landmarkRows: [String: (hunt: String, position: Coordinate)] = {
        let url = TestSupport.packageRoot.appendingPathComponent("Fixtures/landmarks.csv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        var result: [String: (hunt: String, position: Coordinate)] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let f = line.split(separator: ",", maxSplits: 4)
            result[String(f[1])] = (String(f[0]), Coordinate(unchecked: Double(f[2])!, Double(f[3])!))
        }
        return result
    }()

    /// (player, stop or a position off every stop, minutes after 18:00 UTC, accuracy).
    static let visits: [(String, String, Int, Double?)] = [
        ("Ann", "welcome-sign", 0, 5), ("Bo", "welcome-sign", 1, 5), ("Ann", "bellagio-fountains", 20, 8),
        ("Cy", "sphere", 5, 120),  // pending: accuracy worse than the hunt's 50 m
        ("Ann", "fremont-street-experience", 21, 5),  // too fast from the Bellagio: rejected
        ("Bo", "off-map", 30, 5),  // not at a stop
        ("Dee", "fremont-street-experience", 0, 5), ("Dee", "mob-museum", 8, 5),
        ("Dee", "neon-museum", 16, 5),
        ("Dee", "mormon-fort", 24, 5), ("Dee", "container-park", 32, 5), ("Dee", "smith-center", 40, 5),
        ("Dee", "arts-district", 48, 5), ("Bo", "sphere", 50, nil),
    ]

    /// Plays the scenario and answers every question the parity test compares, as text.
    static func play(on store: some LeagueStore, photos: any PhotoStore) async throws -> [String] {
        var answers: [String] = []
        try await store.sync(
            try HuntSources.read(directory: huntsFolder),
            badges: try HuntSources.readBadges(directory: huntsFolder))
        for name in ["Ann", "Bo", "Cy", "Dee", "D\u{E9}"] {
            try await store.addPlayer(name: name, email: nil, at: Date(timeIntervalSince1970: 0))
        }
        // Unique by the NFKC case-folded key: case, full-width forms and decomposed accents do not count.
        for (taken, as_) in [("ann", "ann"), ("ＡＮＮ", "ＡＮＮ"), ("De\u{301}", "D\u{E9}")] {
            await #expect(throws: LeagueError.nameTaken(name: as_)) {
                try await store.addPlayer(name: taken, email: nil, at: Date(timeIntervalSince1970: 0))
            }
        }
        try await store.addPlayer(name: "Jose\u{301}", email: nil, at: Date(timeIntervalSince1970: 0))
        // Stored in NFC: four code points.
        #expect(try await store.requirePlayer(named: "JOS\u{C9}").name.unicodeScalars.count == 4)
        let service = CheckInService(store: store, photos: photos)
        let start = RFC3339.parse("2026-11-21T18:00:00Z")!
        for (name, stop, minute, accuracy) in visits {
            let player = try await store.requirePlayer(named: name).id
            let position = landmarks[stop] ?? Coordinate(unchecked: 36.1160, -115.1760)
            let time = start.addingTimeInterval(Double(minute) * 60)
            let recorded = try await service.checkIn(
                player: player, position: position, time: time, accuracyMeters: accuracy, huntID: nil,
                now: time.addingTimeInterval(60))
            let rules = recorded.decision.rules.map { "\($0.rule.rawValue)=\($0.outcome.rawValue)" }.joined(
                separator: ",")
            answers.append(
                "#\(recorded.id) \(recorded.player) \(recorded.decision.verdict) \(recorded.decision.stop?.id ?? "-") "
                    + "+\(recorded.decision.points) [\(rules)] awards \(recorded.awards.map { $0.badgeID ?? "bonus" })"
            )
        }
        for pending in try await store.pendingCheckIns() {
            answers.append(
                "pending #\(pending.id) \(pending.player) \(pending.stopID ?? "-") \(pending.reasons)")
            let outcome = try await store.review(
                pending.id, .approved, reason: "in the picture", moderator: "mo", at: start)
            answers.append("approved #\(outcome.checkInID) \(outcome.state) +\(outcome.pointsChange)")
        }
        for query in [
            LeaderboardQuery(), LeaderboardQuery(huntID: "strip-classics"), LeaderboardQuery(limit: 2),
            LeaderboardQuery(since: start.addingTimeInterval(600), until: start.addingTimeInterval(3000)),
        ] {
            let board = try await store.leaderboard(query)
            answers.append(
                "board \(query): "
                    + board.map {
                        "\($0.rank) \($0.player) \($0.points) \($0.huntsCompleted) \($0.stopsVisited) \($0.badges)"
                    }
                    .joined(separator: "; "))
        }
        for name in ["Ann", "Bo", "Cy", "Dee"] {
            let profile = try await store.profile(
                player: try await store.requirePlayer(named: name).id, recent: 3)
            answers.append(
                "profile \(profile.name) \(profile.points) \(profile.stopsVisited) \(profile.huntsCompleted) "
                    + "\(profile.hunts.map { "\($0.huntID) \($0.visited)/\($0.total)" }) \(profile.badges.map(\.id)) "
                    + "\(profile.recent.map { "\($0.id) \($0.state) \($0.stopID ?? "-") \($0.points)" })")
        }
        let dee = try await store.requirePlayer(named: "Dee").id
        answers.append(
            "visited \(try await store.visitedStops(player: dee, hunt: "downtown-fremont").sorted())")
        let plan = try await store.collagePlan(player: dee, hunt: "downtown-fremont")
        answers.append(
            "collage \(plan.huntName) \(plan.complete) \(plan.tiles.map { "\($0.stopID) \($0.visited)" })")
        let sign = landmarks["welcome-sign"]!
        answers.append("covering \(try await store.stops(covering: sign, inHunt: nil).map(\.stopID))")
        let nearest = try #require(
            try await store.nearestStop(to: Coordinate(unchecked: 36.1160, -115.1760), inHunt: nil))
        answers.append("nearest \(nearest.stop.stopID) \(Int(nearest.distanceMeters.rounded()))")
        let health = try await store.health(photos: photos)
        answers.append("health \(health.isHealthy) \(health.players) \(health.checkIns) \(health.stops)")
        return answers
    }
}

@Suite struct ParityTests {
    /// The same day of check-ins on the SpatiaLite adapter, on PostGIS and on the memory store: the same
    /// verdicts, rules, points, awards, reviews, boards, profiles, lookups and health.
    @Test func theMemoryStoreAndPostGISAnswerAsSpatiaLiteDoes() async throws {
        let folder = try TestSupport.temporaryDirectory("vsh-parity")
        defer { TestSupport.remove(folder) }
        let path = folder.appendingPathComponent("vsh.sqlite").path
        let spatiaLite = try await Scenario.play(
            on: try SpatiaLiteStore(path: path), photos: FilePhotoStore.beside(databasePath: path))
        let memory = try await Scenario.play(
            on: MemoryStore(), photos: FilePhotoStore(root: folder.appendingPathComponent("m").path))
        // One connection (as a command opens it) answers as the pool does.
        let single = folder.appendingPathComponent("single.sqlite").path
        let oneConnection = try await Scenario.play(
            on: try SpatiaLiteStore(path: single, connections: .single),
            photos: FilePhotoStore.beside(databasePath: single))
        #expect(oneConnection == spatiaLite)
        // PostgreSQL + PostGIS, photos in the database.
        let postGIS = try await PostGISStore(
            url: try PostgresCluster.shared().database(), connectionWait: PostgresCluster.connectionWait)
        let onPostGIS = try await Scenario.play(on: postGIS, photos: PostGISPhotoStore(store: postGIS))
        #expect(onPostGIS.count == spatiaLite.count)
        for (a, b) in zip(spatiaLite, onPostGIS) { #expect(a == b) }
        #expect(spatiaLite.count == Scenario.visits.count + 2 + 4 + 4 + 5)
        #expect(memory.count == spatiaLite.count)
        for (a, b) in zip(spatiaLite, memory) { #expect(a == b) }
        if ProcessInfo.processInfo.environment["VSH_PRINT_PARITY"] != nil {
            print(spatiaLite.joined(separator: "\n"))
        }
        // The scenario exercises every verdict and a completed hunt.
        let all = spatiaLite.joined(separator: "\n")
        for needle in [" accepted ", " rejected ", " pending ", "bonus", "approved #4 accepted +80"] {
            #expect(all.contains(needle), "\(needle)")
        }
    }
}

/// Check-ins recorded in groups (a server's group commit) against the same check-ins one at a time.
@Suite struct GroupParityTests {
    /// The scenario's day, a check-in of Bo's earlier than his latest and a second visit of
    /// Ann's, recorded in three groups (Dee's seven check-ins in one, Ann's four across three,
    /// Bo's last one earlier than his latest live one, so that scoring starts over for him) answer as when each is
    /// recorded alone, and as the memory store does, on every backend: ids, verdicts, rules, points, awards, boards, profiles,
    /// and totals equal to a rescore. On PostGIS a group reads its answers ahead for all of its
    /// check-ins and scores from the stored events: this holds that to the one-at-a-time path.
    @Test(arguments: AccountStoreTests.Backend.allCases)
    func groupsAnswerAsOneAtATime(_ backend: AccountStoreTests.Backend) async throws {
        let visits =
            Scenario.visits + [("Bo", "bellagio-fountains", 25, 5.0), ("Ann", "welcome-sign", 30, 5)]
        // The reference: the in-memory store, one at a time (its history is plain arrays).
        let reference = try await Self.play(visits, groups: nil, on: MemoryStore())
        let alone = try await Self.play(visits, groups: nil, on: try await AccountStoreTests().store(backend))
        let grouped = try await Self.play(
            visits, groups: [3, 8, visits.count - 11], on: try await AccountStoreTests().store(backend))
        #expect(reference.count == visits.count + 4 + 4 + 1)
        #expect(alone.count == reference.count)
        #expect(grouped.count == reference.count)
        for (a, b) in zip(reference, alone) { #expect(a == b) }
        for (a, b) in zip(reference, grouped) { #expect(a == b) }
        // What the groups exercised: every verdict, a completion, a second visit (no points).
        let all = reference.joined(separator: "\n")
        for needle in [
            " accepted ", " rejected ", " pending ", "bonus", "wrong totals 0",
            "#16 Ann accepted welcome-sign +0",
        ] {
            #expect(all.contains(needle), "\(needle)")
        }
    }

    /// The scenario's check-ins naming their hunts, as the web app sends them: the rules then
    /// ask for the named hunt. On PostGIS a group's decided check-ins are written before a
    /// question about check-ins, not before one about the definitions: this holds that to the
    /// one-at-a-time path.
    @Test(arguments: AccountStoreTests.Backend.allCases)
    func groupsNamingTheirHuntsAnswerAsOneAtATime(_ backend: AccountStoreTests.Backend) async throws {
        let visits = Scenario.visits
        let reference = try await Self.play(visits, groups: nil, named: true, on: MemoryStore())
        let grouped = try await Self.play(
            visits, groups: [4, visits.count - 4], named: true,
            on: try await AccountStoreTests().store(backend))
        #expect(grouped.count == visits.count + 4 + 4 + 1)
        #expect(grouped == reference)
        let all = reference.joined(separator: "\n")
        for needle in [" accepted ", " rejected ", " pending ", "bonus", "wrong totals 0"] {
            #expect(all.contains(needle), "\(needle)")
        }
    }

    /// A PostGIS group of first check-ins by different players, each naming its hunt, is
    /// inserted in one statement (a statement trigger counts them): the rules' questions about
    /// the named hunts are answered from the definitions, without writing the check-ins decided
    /// before them one by one.
    @Test func aGroupNamingItsHuntsIsInsertedInOneStatement() async throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.database()
        let store = try await PostGISStore(url: url, connectionWait: PostgresCluster.connectionWait)
        defer { store.close() }
        let database = String(url.split(separator: "/").last!)
        try await store.sync(
            try HuntSources.read(directory: Scenario.huntsFolder),
            badges: try HuntSources.readBadges(directory: Scenario.huntsFolder))
        let counter = try cluster.psql(
            database,
            """
            CREATE TABLE insert_statements (n int NOT NULL);
            INSERT INTO insert_statements VALUES (0);
            CREATE FUNCTION count_insert() RETURNS trigger LANGUAGE plpgsql AS
                'BEGIN UPDATE insert_statements SET n = n + 1; RETURN NULL; END';
            CREATE TRIGGER count_inserts AFTER INSERT ON checkins
                FOR EACH STATEMENT EXECUTE FUNCTION count_insert();
            """)
        #expect(counter.status == 0, "\(counter.stderr)")
        let firsts = [
            ("Ann", "welcome-sign", 0, 5.0), ("Bo", "welcome-sign", 1, 5), ("Cy", "sphere", 5, 8),
            ("Dee", "fremont-street-experience", 0, 5),
        ]
        let played = try await Self.play(
            firsts.map { ($0.0, $0.1, $0.2, Optional($0.3)) }, groups: [firsts.count], named: true, on: store)
        #expect(played.filter { $0.contains(" accepted ") }.count == firsts.count, "\(played)")
        let statements = try cluster.psql(database, "SELECT n FROM insert_statements")
        #expect(
            statements.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "\(statements.stdout)")
    }

    /// Records `visits` alone, or in groups of these sizes, and describes what came of them;
    /// `named`: each check-in names the hunt of its stop.
    static func play(
        _ visits: [(String, String, Int, Double?)], groups: [Int]?, named: Bool = false,
        on store: any LeagueStore
    ) async throws -> [String] {
        try await store.sync(
            try HuntSources.read(directory: Scenario.huntsFolder),
            badges: try HuntSources.readBadges(directory: Scenario.huntsFolder))
        for name in ["Ann", "Bo", "Cy", "Dee"] {
            try await store.addPlayer(name: name, email: nil, at: Date(timeIntervalSince1970: 0))
        }
        let folder = try TestSupport.temporaryDirectory("vsh-group-parity")
        defer { TestSupport.remove(folder) }
        let service = CheckInService(store: store, photos: FilePhotoStore(root: folder.path))
        let verifier = service.verifier
        let start = RFC3339.parse("2026-11-21T18:00:00Z")!
        var requests: [CheckInRequest] = []
        for (name, stop, minute, accuracy) in visits {
            let player = try await store.requirePlayer(named: name).id
            let position = Scenario.landmarks[stop] ?? Coordinate(unchecked: 36.1160, -115.1760)
            let time = start.addingTimeInterval(Double(minute) * 60)
            let submission = try await service.submission(
                player: player, position: position, time: time, accuracyMeters: accuracy,
                huntID: named ? Scenario.huntOf[stop] : nil, now: time.addingTimeInterval(60))
            requests.append(CheckInRequest(submission: submission, photoFile: nil))
        }
        var recorded: [RecordedCheckIn] = []
        let decide: CheckInDecider = { verifier.evaluate($0, facts: $1) }
        var rest = requests[...]
        for size in groups ?? Array(repeating: 1, count: requests.count) {
            for outcome in try await store.recordGroup(Array(rest.prefix(size)), decide: decide) {
                guard case .recorded(let one, _) = outcome else {
                    Issue.record("a check-in without a retry key was not recorded")
                    continue
                }
                recorded.append(one)
            }
            rest = rest.dropFirst(size)
        }
        #expect(rest.isEmpty)
        var answers = recorded.map { recorded in
            let rules = recorded.decision.rules.map { "\($0.rule.rawValue)=\($0.outcome.rawValue)" }
            return "#\(recorded.id) \(recorded.player) \(recorded.decision.verdict) "
                + "\(recorded.decision.stop?.id ?? "-") +\(recorded.decision.points) \(rules) "
                + "awards \(recorded.awards.map { "\($0.badgeID ?? "bonus") \($0.points)" })"
        }
        for query in [
            LeaderboardQuery(), LeaderboardQuery(huntID: "strip-classics"),
            LeaderboardQuery(huntID: "downtown-fremont"),
            LeaderboardQuery(since: start.addingTimeInterval(600), until: start.addingTimeInterval(3000)),
        ] {
            answers.append(
                "board: "
                    + (try await store.leaderboard(query)).map {
                        "\($0.rank) \($0.player) \($0.points) \($0.huntsCompleted) \($0.stopsVisited) \($0.badges)"
                    }.joined(separator: "; "))
        }
        for name in ["Ann", "Bo", "Cy", "Dee"] {
            let profile = try await store.profile(
                player: try await store.requirePlayer(named: name).id, recent: 20)
            answers.append(
                "profile \(profile.name) \(profile.points) \(profile.hunts.map { "\($0.huntID) \($0.visited)" }) "
                    + "\(profile.badges.map { "\($0.id) \($0.checkInID)" })")
        }
        let health = try await store.health(photos: FilePhotoStore(root: folder.path))
        answers.append("check-ins \(health.checkIns), wrong totals \(health.playersWithWrongTotals)")
        return answers
    }
}
